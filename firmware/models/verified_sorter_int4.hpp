#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT4_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT4_HPP

/// \file
/// The verified model in int8 with int4 weights on the target: verified_sorter_int8.hpp's model quantized with
/// `ctattn::quantize_options{.weights = ctattn::weight_format::int4}`, every linear layer's weights two a byte in
/// flash. The image runs one inference per golden input and compares the int8 logits with the compiler's.
///
/// | value    | shape                        |
/// |----------|------------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 int8 logit matrices |

#include <array>
#include <cstddef>

#include "golden.hpp"
#include "int8_sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

inline constexpr ctattn::quantize_options int4_options{.weights = ctattn::weight_format::int4};
using int4_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int4_options>;
inline constexpr int4_sorter int4_sorter_weights = ctattn::quantize<toy::sorter_ranges, int4_options>(sorter_weights);

struct verified_sorter_int4 {
  static constexpr const char* name = "verified model in int8 with int4 weights: 2 encoder layers (d_model 32)";

  using logits = decltype(int4_sorter_weights.forward(golden::inputs[0]));

  /// One inference's memory: the model object `int4_sorter_weights` (int4 weights, folded biases, multipliers,
  /// norms and tables, in flash) and, on the stack, the activations with the deepest layer's scratch (an int4
  /// layer's unpacked block of channels included).
  static constexpr ctattn::footprint footprint = ctattn::layer_footprint<int4_sorter, toy::digit_ids>;

  struct inputs {
    std::array<std::array<int, toy::length>, golden::count> digits;
  };

  struct outputs {
    logits first, second, third, fourth;
  };

  static constexpr inputs example() noexcept { return {golden::inputs}; }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {int4_sorter_weights.forward(in.digits[0]), int4_sorter_weights.forward(in.digits[1]),
            int4_sorter_weights.forward(in.digits[2]), int4_sorter_weights.forward(in.digits[3])};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 logits of golden input 0", &outputs::first);
    f("int8 logits of golden input 1", &outputs::second);
    f("int8 logits of golden input 2", &outputs::third);
    f("int8 logits of golden input 3", &outputs::fourth);
  }
};

// int4 weights halve the linears' bytes; the model object keeps each channel's bias and multiplier.
static_assert(sizeof(int4_sorter) < sizeof(toy::int8_sorter));
static_assert(verified_sorter_int4::footprint.weight_bytes == sizeof(int4_sorter));

// The compiler's int4 logits for golden input 0 still sort the digits.
static_assert(toy::answer(verified_sorter_int4::evaluate(verified_sorter_int4::example()).first) ==
              toy::sorted(golden::inputs[0]));

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT4_HPP
