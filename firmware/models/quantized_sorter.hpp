#ifndef CTATTN_FIRMWARE_MODELS_QUANTIZED_SORTER_HPP
#define CTATTN_FIRMWARE_MODELS_QUANTIZED_SORTER_HPP

/// \file
/// The image protocol (runtime/check_model.hpp) for a quantized form of the verified sorter: the model object in
/// flash run on the four golden inputs, its int8 (or int16) logits compared with the compiler's. Used by
/// verified_sorter_int8.hpp (int8 weights), verified_sorter_16x8.hpp (int16 activations) and
/// verified_sorter_modes.hpp (the other quantization modes).
///
/// | value    | shape                        |
/// |----------|------------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 int8 logit matrices |

#include <array>
#include <type_traits>

#include "golden.hpp"
#include "int8_sorter.hpp"

namespace ctattn_firmware::models {

/// The quantized sorter Sorter (a constexpr model object in flash) on the four golden inputs, named Name: the int8
/// model here, its other quantization modes in verified_sorter_modes.hpp.
template <const auto& Sorter, const auto& Name>
struct verified_sorter_of {
  static constexpr const char* name = Name;

  using logits = decltype(Sorter.forward(golden::inputs[0]));

  /// One inference's memory: the weights (the model object: int8 or int4 weights, folded biases, multipliers and
  /// tables, in flash) and, on the stack, the activations the layers return by value with the deepest layer's
  /// scratch (an int4 layer's unpacked block of channels included); the test firmware_verified_sorter_int8_footprint
  /// holds the int8 model's weights to the linker's symbol size and the stack figure to the call graph's worst case
  /// (it must bound it).
  static constexpr ctattn::footprint footprint =
      ctattn::layer_footprint<std::remove_cvref_t<decltype(Sorter)>, toy::digit_ids>;

  struct inputs {
    std::array<std::array<int, toy::length>, golden::count> digits;
  };

  struct outputs {
    logits first, second, third, fourth;
  };

  static constexpr inputs example() noexcept { return {golden::inputs}; }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {Sorter.forward(in.digits[0]), Sorter.forward(in.digits[1]), Sorter.forward(in.digits[2]),
            Sorter.forward(in.digits[3])};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("quantized logits of golden input 0", &outputs::first);
    f("quantized logits of golden input 1", &outputs::second);
    f("quantized logits of golden input 2", &outputs::third);
    f("quantized logits of golden input 3", &outputs::fourth);
  }
};

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_QUANTIZED_SORTER_HPP
