#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT8_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT8_HPP

/// \file
/// The verified model in int8 on the target (examples/verified_model/int8_sorter.hpp): the trained sorter's weights,
/// imported from sorter.safetensors at configure time, quantized by the compiler (`ctattn::quantize`) with the
/// ranges ctattn recorded (sorter_ranges.hpp), in flash as a constexpr `toy::int8_sorter`. The image runs one inference per golden input in
/// integers only and compares the int8 logits with the compiler's, which are the Python reference's
/// (static_assert below and in examples/verified_model/int8_model.cpp).
///
/// | value    | shape                        |
/// |----------|------------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 int8 logit matrices |

#include <array>
#include <cstddef>
#include <cstdint>

#include "golden.hpp"
#include "int8_golden.hpp"
#include "int8_sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

inline constexpr toy::int8_sorter int8_sorter_weights = ctattn::quantize<toy::sorter_ranges>(sorter_weights);

#if defined(CTATTN_FIRMWARE_STACK_BYTES)
// One inference's activations and scratch (the int8 footprint's RAM) within the stack this board's images reserve:
// 8 KB of the Cortex-M0's 16 KB of RAM, 16 KB elsewhere.
static_assert(toy::int8_sorter_footprint.ram_bytes() <= CTATTN_FIRMWARE_STACK_BYTES,
              "the int8 sorter's RAM for one inference must fit the board's stack");
#endif

struct verified_sorter_int8 {
  static constexpr const char* name = "verified model in int8: 2 encoder layers, integers only (d_model 32)";

  using logits = decltype(int8_sorter_weights.forward(golden::inputs[0]));

  /// One inference's memory: the weights (the model object `int8_sorter_weights`: int8 weights, folded biases,
  /// multipliers and tables, in flash) and, on the stack, the activations the layers return by value with the
  /// deepest layer's scratch; the test firmware_verified_sorter_int8_footprint holds the weights to the linker's
  /// symbol size and the stack figure to the call graph's worst case (it must bound it).
  static constexpr ctattn::footprint footprint = toy::int8_sorter_footprint;

  struct inputs {
    std::array<std::array<int, toy::length>, golden::count> digits;
  };

  struct outputs {
    logits first, second, third, fourth;
  };

  static constexpr inputs example() noexcept { return {golden::inputs}; }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {int8_sorter_weights.forward(in.digits[0]), int8_sorter_weights.forward(in.digits[1]),
            int8_sorter_weights.forward(in.digits[2]), int8_sorter_weights.forward(in.digits[3])};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 logits of golden input 0", &outputs::first);
    f("int8 logits of golden input 1", &outputs::second);
    f("int8 logits of golden input 2", &outputs::third);
    f("int8 logits of golden input 3", &outputs::fourth);
  }
};

// The compiler's int8 logits for golden input 0 are the Python reference's, and sort the digits.
static_assert([] {
  const auto logits = verified_sorter_int8::evaluate(verified_sorter_int8::example()).first;
  bool same = toy::answer(logits) == toy::sorted(golden::inputs[0]);
  for (std::size_t i = 0; i < toy::length; ++i) {
    for (std::size_t c = 0; c < toy::digits; ++c) same = same && logits(i, c) == int8_golden::golden_logits[0][i][c];
  }
  return same;
}());

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT8_HPP
