// SPDX-License-Identifier: BSL-1.0
// A layer of one's own in int8 at run time (tests/support/own_layer_cases.hpp, asserted at compile time by
// tests/static/own_layer_int8_test.cpp): calibration, quantization (the layer's `int8_form` among the library's
// layers) and the int8 forward run as compiled code on inputs the optimizer cannot see through, and give the bits
// of constant evaluation.
#include "catch.hpp"
#include "support/own_layer_cases.hpp"
#include "support/test_data.hpp"

#include <array>
#include <cstddef>
#include <string>

namespace {
namespace cases = ctattn_test::own_layer_cases;
using ctattn_test::opaque;

// The inputs, and the int8 model's outputs and its layer of one's own's on each, computed by the compiler.
inline constexpr std::array<ctattn::matrix<float, 3, 4>, 5> inputs{
    cases::calibration[0], cases::calibration[1], cases::calibration[2], cases::held_out, cases::beyond};
template <std::size_t I>
constexpr auto int8_input = ctattn::quantized_input<cases::int8_model>(inputs[I]);
template <std::size_t I>
constexpr auto after_fc = cases::int8_net.layer<0>().forward(int8_input<I>);
template <std::size_t I>
constexpr auto after_scale = cases::int8_net.layer<1>().forward(after_fc<I>);
template <std::size_t I>
constexpr auto output = cases::int8_net.forward(int8_input<I>);
template <std::size_t I>
constexpr double error = ctattn::int8_error(cases::int8_net, cases::float_model, inputs[I]);

template <std::size_t I>
void check_input(const cases::int8_model& m) {
  INFO("input " << I);
  const auto x_q = ctattn::quantized_input<cases::int8_model>(opaque(inputs[I]));
  CHECK(x_q == int8_input<I>);
  const auto h = m.layer<0>().forward(x_q);
  CHECK(h == after_fc<I>);
  CHECK(m.layer<1>().forward(opaque(h)) == after_scale<I>);  // the layer of one's own alone
  CHECK(m.forward(x_q) == output<I>);                        // the whole int8 chain
  CHECK(ctattn::int8_error(m, opaque(cases::float_model), opaque(inputs[I])) == error<I>);
}
}  // namespace

TEST_CASE("a layer of one's own in int8 gives at run time the bits it gives the compiler", "[quantized][own_layer]") {
  // Calibration at run time records the compile-time ranges, the layer's output under its path among them.
  const cases::net float_model = opaque(cases::float_model);
  ctattn::activation_ranges<8> ranges{};
  for (const auto& x : cases::calibration) (void)ctattn::record_ranges(float_model, opaque(x), ranges);
  REQUIRE(ranges.size() == cases::recorded.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    INFO(std::string(ranges.name(i)));
    CHECK(std::string(ranges.name(i)) == std::string(cases::recorded.name(i)));
    CHECK(ranges.range(i).lo == cases::recorded.range(i).lo);
    CHECK(ranges.range(i).hi == cases::recorded.range(i).hi);
  }
  CHECK(ranges.find("scale") != nullptr);

  // Quantizing at run time gives the compile-time int8 model: the layer's int8 weights and multipliers too.
  static const cases::int8_model quantized_at_run_time = ctattn::quantize<cases::table>(float_model);
  CHECK(quantized_at_run_time == cases::int8_net);
  CHECK(quantized_at_run_time.layer<1>() == cases::int8_net.layer<1>());

  // The int8 forward at run time, the layer of one's own alone and in the chain: the compile-time bits, on the
  // calibration inputs, one held out and one beyond the recorded ranges (where outputs clamp).
  const cases::int8_model& m = opaque(cases::int8_net);
  check_input<0>(m);
  check_input<1>(m);
  check_input<2>(m);
  check_input<3>(m);
  check_input<4>(m);
}
