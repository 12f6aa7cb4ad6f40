// SPDX-License-Identifier: BSL-1.0
// The llama-style model in int8 at run time (tests/support/qllama_cases.hpp, asserted at compile time by
// tests/static/qllama_test.cpp): calibration, quantization, forward and the decoding step run as compiled code on
// inputs the optimizer cannot see through, giving the constant-evaluated bits with this build's int8 backend.
#include "catch.hpp"
#include "support/qllama_cases.hpp"
#include "support/test_data.hpp"

#include <array>
#include <cstddef>
#include <string>

namespace {
namespace cases = ctattn_test::qllama_cases;
using ctattn_test::opaque;

template <bool Tied>
void check_model() {
  INFO("ctattn::int8_backend_name is " << ctattn::int8_backend_name << "; tied " << Tied);
  using int8_model = cases::int8_model<Tied>;
  static constexpr auto at_compile_time = cases::quantized<Tied>.forward(cases::prompt);

  // Calibration at run time records the compile-time ranges, and quantizing with them the compile-time model.
  const auto float_model = opaque(cases::float_model<Tied>);
  ctattn::activation_ranges<64> ranges{};
  (void)ctattn::record_ranges(float_model, opaque(cases::prompt), ranges);
  (void)ctattn::record_ranges(float_model, opaque(cases::calibration), ranges);
  REQUIRE(ranges.size() == cases::recorded<Tied>.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    INFO(std::string(ranges.name(i)));
    CHECK(std::string(ranges.name(i)) == std::string(cases::recorded<Tied>.name(i)));
    CHECK(ranges.range(i).lo == cases::recorded<Tied>.range(i).lo);
    CHECK(ranges.range(i).hi == cases::recorded<Tied>.range(i).hi);
  }
  static const int8_model quantized_at_run_time = ctattn::quantize<cases::table<Tied>>(float_model);
  CHECK(quantized_at_run_time == cases::quantized<Tied>);

  // The int8 forward and the int8 step at run time: the compile-time bits.
  const int8_model& m = opaque(cases::quantized<Tied>);
  const auto ids = opaque(cases::prompt);
  CHECK(m.forward(ids) == at_compile_time);
  typename int8_model::template decode_state<8> state{};
  typename int8_model::logits_row row{};
  for (std::size_t t = 0; t < ids.size(); ++t) {
    REQUIRE(m.step(ids[t], state, row) == ctattn::decode_status::decoded);
    bool same = true;
    for (std::size_t j = 0; j < int8_model::vocabulary; ++j) same = same && row(0, j) == at_compile_time(t, j);
    CHECK(same);
  }
  CHECK(m.step(opaque(3), state, row) == ctattn::decode_status::cache_full);
  state.clear();
  CHECK(m.step(opaque(16), state, row) == ctattn::decode_status::token_outside_vocabulary);
  CHECK(m.step(opaque(-2), state, row) == ctattn::decode_status::token_outside_vocabulary);
  CHECK(state.length() == 0);

  // Greedy decoding at run time picks the compile-time tokens, which are the float model's.
  static constexpr cases::greedy_run expected = cases::greedy<Tied>();
  typename int8_model::template decode_state<cases::prompt_tokens + cases::generated> greedy{};
  std::array<std::size_t, cases::generated> picks{};
  std::array<int, cases::prompt_tokens> prompt{};
  for (std::size_t t = 0; t < cases::prompt_tokens; ++t) prompt[t] = static_cast<int>(ids[t]);
  const auto run = ctattn::generate_greedy(m, greedy, row, prompt, picks, [](std::size_t, const auto&) {});
  CHECK(run == ctattn::greedy_generation{cases::generated, ctattn::decode_status::decoded});
  CHECK(greedy.length() == cases::prompt_tokens + cases::generated - 1);
  CHECK(picks == expected.int8_tokens);
  CHECK(picks == expected.float_tokens);
}
}  // namespace

TEST_CASE("the int8 llama model at run time has the bits of the constant-evaluated one", "[quantized][llama]") {
  check_model<true>();
  check_model<false>();
}

TEST_CASE("the int8 llama model runs on the int8 backend its build was made for", "[quantized][llama]") {
#ifdef CTATTN_TEST_INT8_BACKEND
  CHECK(std::string(ctattn::int8_backend_name) == CTATTN_TEST_INT8_BACKEND);
#else
  CHECK(std::string(ctattn::int8_backend_name).size() > 0);
#endif
}

TEST_CASE("the int8 llama model's decode footprint is its objects' sizes", "[quantized][llama]") {
  using int8_model = cases::int8_model<true>;
  constexpr ctattn::footprint f = int8_model::decode_footprint<8>();
  CHECK(f.weight_bytes == sizeof(int8_model) + sizeof(int8_model::attention_type::table_type));
  CHECK(f.workspace_bytes == sizeof(int8_model::decode_state<8>));
  CHECK(f.output_bytes == sizeof(int8_model::logits_row));
}
