// Run-time tests of the llama-style layers: every case against PyTorch with exact arithmetic
// (tests/support/llama_cases.hpp), run time giving the bits of constant evaluation, and stories260K's shape.
#include "catch.hpp"
#include "support/llama_cases.hpp"
#include "support/test_data.hpp"

#include <array>
#include <cstddef>
#include <string>

namespace {
namespace cases = ctattn_test::llama_cases;
namespace fx = ctattn_fixtures::llama;
using ctattn_test::opaque;
}  // namespace

TEST_CASE("the llama layers match PyTorch at run time", "[layers][llama]") {
  for (const cases::result& r : cases::results()) {
    INFO(std::string(r.name) << ": error " << r.error << ", bound " << r.bound);
    CHECK(r.error <= r.bound);
  }
}

TEST_CASE("a llama model at run time has the bits of the constant-evaluated one", "[layers][llama]") {
  using model = cases::model<float, true>;
  static constexpr auto loaded = [] {
    model m{};
    const bool ok = ctattn_test::load_in_order(m, fx::model_tied::params_f32, fx::model_tied::names,
                                               fx::model_tied::sizes, fx::model_tied::ranks);
    return std::pair{m, ok};
  }();
  static_assert(loaded.second);
  static constexpr std::array<int, 6> ids{1, 5, 9, 31, 0, 7};
  static constexpr auto at_compile_time = loaded.first.forward(ids);
  const model m = opaque(loaded.first);
  const auto at_run_time = m.forward(opaque(ids));
  CHECK(at_run_time == at_compile_time);
  model::decode_state<6> state{};
  model::logits_row row{};
  for (std::size_t t = 0; t < ids.size(); ++t) {
    REQUIRE(m.step(opaque(ids)[t], state, row) == ctattn::decode_status::decoded);
    bool same = true;
    for (std::size_t j = 0; j < 32; ++j) same = same && row(0, j) == at_compile_time(t, j);
    CHECK(same);
  }
}

TEST_CASE("stories260K's shape: llama2.c's names, 260,032 parameters", "[layers][llama]") {
  using stories260k = ctattn::llama_transformer<float, 512, 64, 5, 8, 4, 172, 512>;
  static const stories260k m{};
  CHECK(ctattn::parameter_count(m) == 260'032);
  CHECK(ctattn::parameter_tensor_count(m) == 1 + 5 * 9 + 1);
  CHECK(std::string(ctattn::parameter_name_at(m, 0).view()) == "tok_embeddings.weight");
  CHECK(std::string(ctattn::parameter_name_at(m, 1).view()) == "layers.0.attention.wq.weight");
  CHECK(std::string(ctattn::parameter_name_at(m, 45).view()) == "layers.4.ffn_norm.weight");
  CHECK(std::string(ctattn::parameter_name_at(m, 46).view()) == "norm.weight");
  CHECK(ctattn::parameter_name_at(m, 47).view().empty());
}
