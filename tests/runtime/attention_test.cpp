// Run-time tests of scaled dot-product attention against the PyTorch fixtures, and bit-identity with the
// constant-evaluated results.
#include "catch.hpp"
#include "support/attention_cases.hpp"
#include "support/test_data.hpp"
#include "support/worked_example.hpp"

#include <ctattn/ctattn.hpp>

#include <cmath>

namespace {

namespace cases = ctattn_test::attention_cases;
using ctattn_test::bit_identical;
using ctattn_test::opaque;

void check(const ctattn_test::attention_check& c) {
  INFO("float output difference " << c.float_output_difference << ", weights " << c.float_weights_difference
                                  << "; double output " << c.double_output_difference << ", weights "
                                  << c.double_weights_difference);
  CHECK(c.float_output);
  CHECK(c.float_weights);
  CHECK(c.double_output);
  CHECK(c.double_weights);
  CHECK(c.output_matches_output_of_with_weights);
}

}  // namespace

TEST_CASE("attention matches PyTorch at run time, for every mask kind", "[attention]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, cases::every_case>(
      ctattn_test::identity, [](const char* name, std::size_t, const ctattn_test::attention_check& c) {
        INFO(name);
        check(c);
      });
}

TEST_CASE("the worked example computed at run time has the bits of the constant-evaluated one", "[attention]") {
  using namespace ctattn_test::worked;
  static constexpr auto compile_time = ctattn::self_attention(x, head, ctattn::with_weights);
  const auto run_time = ctattn::self_attention(opaque(x), opaque(head), ctattn::with_weights);
  CHECK(bit_identical(run_time.output, compile_time.output));
  CHECK(bit_identical(run_time.weights, compile_time.weights));
  CHECK(ctattn::approx_equal(run_time.output, ctattn::from_array<seq{6}, d_v{28}>(fx::context), 1e-5f, 1e-5f));
  static constexpr auto causal_compile_time = ctattn::self_attention(x, head, ctattn::causal);
  CHECK(bit_identical(ctattn::self_attention(opaque(x), opaque(head), ctattn::causal), causal_compile_time));
}

TEST_CASE("a run-time key padding length changes what the queries see", "[attention]") {
  using ctattn_test::random_matrix;
  const auto q = random_matrix<ctattn::matrix<float, 3, 4>>(11);
  const auto k = random_matrix<ctattn::matrix<float, 5, 4>>(12);
  const auto v = random_matrix<ctattn::matrix<float, 5, 2>>(13);
  for (std::size_t valid = 0; valid <= 5; ++valid) {
    const auto result =
        ctattn::scaled_dot_product_attention(q, k, v, ctattn::key_padding_length{valid}, ctattn::with_weights);
    for (std::size_t i = 0; i < 3; ++i) {
      float total = 0.0f;
      for (std::size_t j = 0; j < 5; ++j) {
        if (j >= valid) CHECK(result.weights(i, j) == 0.0f);
        total += result.weights(i, j);
      }
      if (valid == 0) {
        CHECK(total == 0.0f);
        CHECK(result.output(i, 0) == 0.0f);
      } else {
        CHECK(std::fabs(total - 1.0f) < 1e-6f);
      }
    }
  }
}

TEST_CASE("a sliding window visits only the keys inside it", "[attention]") {
  // Keys outside the window hold NaN values: a kernel that read them would produce NaN.
  using ctattn_test::random_matrix;
  const auto q = random_matrix<ctattn::matrix<double, 9, 4>>(21);
  auto k = random_matrix<ctattn::matrix<double, 9, 4>>(22);
  auto v = random_matrix<ctattn::matrix<double, 9, 3>>(23);
  const auto reference = ctattn::scaled_dot_product_attention(q, k, v, ctattn::sliding_window<1>);
  // Row 4 sees keys 3, 4, 5 only; poison key 0 and 8 and check row 4 is unchanged.
  k(0, 0) = std::nan("");
  v(8, 1) = std::nan("");
  const auto poisoned = ctattn::scaled_dot_product_attention(q, k, v, ctattn::sliding_window<1>);
  for (std::size_t c = 0; c < 3; ++c) CHECK(poisoned(4, c) == reference(4, c));
}
