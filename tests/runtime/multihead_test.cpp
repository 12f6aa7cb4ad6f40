// Run-time tests of multi-head attention against the PyTorch fixtures, and bit-identity with constant evaluation.
#include "catch.hpp"
#include "support/multihead_cases.hpp"
#include "support/test_data.hpp"

namespace {
namespace cases = ctattn_test::multihead_cases;

void check(const cases::check& c) {
  INFO("float output difference " << c.float_output_difference << ", double " << c.double_output_difference);
  CHECK(c.float_output);
  CHECK(c.float_head_weights);
  CHECK(c.float_mean_weights);
  CHECK(c.double_output);
  CHECK(c.double_head_weights);
}
void check(const cases::wide_check& c) {
  INFO("concat difference " << c.concat_difference);
  CHECK(c.concat);
  CHECK(c.weights);
}
}  // namespace

TEST_CASE("multi-head attention matches PyTorch at run time", "[multihead]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, cases::every_case>(
      ctattn_test::identity, [](const char* name, std::size_t, const auto& c) {
        INFO(name);
        check(c);
      });
}

TEST_CASE("multi-head attention at run time has the bits of the constant-evaluated one", "[multihead]") {
  namespace c = ctattn_fixtures::multihead::self_attention;
  static constexpr auto x = ctattn_test::to_matrix<float>(c::x);
  static constexpr auto w =
      ctattn::from_torch_multihead<2>(c::in_proj_weight, c::in_proj_bias, c::out_proj_weight, c::out_proj_bias);
  static constexpr auto compile_time = ctattn::multi_head_attention(x, x, x, w, ctattn::causal, ctattn::with_weights);
  const auto xr = ctattn_test::opaque(x);
  const auto run_time =
      ctattn::multi_head_attention(xr, xr, xr, ctattn_test::opaque(w), ctattn::causal, ctattn::with_weights);
  CHECK(ctattn_test::bit_identical(run_time.output, compile_time.output));
  CHECK(ctattn_test::bit_identical(run_time.mean_weights, compile_time.mean_weights));
  static constexpr auto wide_compile_time = ctattn::wide_multi_head_attention(
      ctattn::from_array(cases::three::x), ctattn::from_array(cases::three::x), cases::three_heads());
  const auto wx = ctattn_test::opaque(ctattn::from_array(cases::three::x));
  CHECK(ctattn_test::bit_identical(ctattn::wide_multi_head_attention(wx, wx, ctattn_test::opaque(cases::three_heads())),
                                   wide_compile_time));
}
