#ifndef CTATTN_FIRMWARE_MODELS_KWT1_INT8_HPP
#define CTATTN_FIRMWARE_MODELS_KWT1_INT8_HPP

/// \file
/// KWT-1 in int8 as the images run it, on the two inputs of kwt1_float.hpp: quantized by the compiler (one pass
/// over the 611 K weights: about 30 s and 1.8 GB with GCC 12, 30 s and 0.3 GB with Clang 14), compared bit for bit
/// with the build machine's int8 logits. A header of its own so that the float image does not pay for the
/// quantization.
///
/// | value           | shape                                      |
/// |-----------------|--------------------------------------------|
/// | input           | 98 x 40 int8 in the input's quantization   |
/// | output          | 1 x 35 int8 logits                         |

#include "kwt1_float.hpp"

namespace ctattn_firmware::models {

namespace kwt1 {
/// The int8 model, quantized by the compiler.
inline constexpr int8_model int8_weights = ctattn::quantize<ranges>(weights);
}  // namespace kwt1

/// KWT-1 in int8 on the same two inputs, quantized by the compiler: integers only on the target, compared bit for
/// bit with the build machine's int8 logits.
struct kwt1_int8 {
  static constexpr const char* name = "KWT-1 keyword transformer in int8: 98 frames, 12 layers (d_model 64)";
  static constexpr const char* expected_source = "the build machine's (firmware/tools/kwt1_expected.cpp)";
  using logits = decltype(kwt1::int8_weights.forward(kwt1::int8_input{}));
  static constexpr ctattn::footprint footprint = kwt1::int8_footprint;

  struct inputs {
    std::array<kwt1::int8_input, 2> frames;
  };
  struct outputs {
    logits first, second;
  };

  static constexpr inputs example() noexcept {
    constexpr auto q = kwt1::int8_model::first_layer::input_quantization;
    return {{ctattn::quantize<q>(kwt1::frames_of(kwt1::example_seeds[0])),
             ctattn::quantize<q>(kwt1::frames_of(kwt1::example_seeds[1]))}};
  }
  static constexpr outputs expected() noexcept {
    return {kwt1::logits_from<logits>(kwt1::expected_int8_logits[0]),
            kwt1::logits_from<logits>(kwt1::expected_int8_logits[1])};
  }
  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {kwt1::int8_weights.forward(in.frames[0]), kwt1::int8_weights.forward(in.frames[1])};
  }
  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 logits of input 0", &outputs::first);
    f("int8 logits of input 1", &outputs::second);
  }
};

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_KWT1_INT8_HPP
