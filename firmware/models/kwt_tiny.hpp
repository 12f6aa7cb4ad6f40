#ifndef CTATTN_FIRMWARE_MODELS_KWT_TINY_HPP
#define CTATTN_FIRMWARE_MODELS_KWT_TINY_HPP

/// \file
/// A keyword transformer of KWT-Tiny's size on the target: 49 MFCC frames of 10 features (one second of audio, the
/// input of the usual microcontroller keyword spotters), each frame embedded by a Linear(10, 16), a class token,
/// learned positions over 50 rows, one post-norm encoder layer (d_model 16, 1 head, MLP 32, GELU, eps 1e-6, as
/// ARM's KWT), the class token's row and a Linear head to 2 classes: 3,250 parameters, 190,272 multiply-adds.
///
/// The weights are small numbers fixed by their place (the images check arithmetic, not accuracy: a trained model
/// has the same operations). Everything else is made by the compiler: the ranges of the activations recorded over
/// four calibration inputs (`ctattn::record_ranges` in a constant expression), the int8 model
/// (`ctattn::quantize`), and the expected outputs the images compare with, bit for bit.
///
/// | value           | shape                                      |
/// |-----------------|--------------------------------------------|
/// | input           | 49 x 10 floats, or int8 in the input's quantization |
/// | output          | 1 x 2 logits (float, or int8)              |
///
/// Its RAM for one int8 inference is `static_assert`-ed under 64 KB (KWT-Tiny's budget) and within the board's
/// stack, on every board (the micro:bit's 8 KB too).

#include <array>
#include <cstddef>
#include <cstdint>

#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "synthetic.hpp"

namespace ctattn_firmware::models {

namespace kwt {

inline constexpr std::size_t frames = 49;
inline constexpr std::size_t features = 10;
inline constexpr std::size_t width = 16;

using block = ctattn::transformer_encoder_layer<float, width, 1, 32, ctattn::gelu, /*norm_first=*/false>;
using input = ctattn::matrix<float, frames, features>;

/// The model, with the state_dict names of a PyTorch KWT.
struct kwt_tiny : ctattn::model<kwt_tiny> {
  BOOST_HANA_DEFINE_STRUCT(kwt_tiny,
                           (ctattn::linear<float, features, width, ctattn::out_by_in, true>, to_patch_embedding),
                           (ctattn::class_token<float, width>, cls_token),
                           (ctattn::position_parameter<float, frames + 1, width>, pos_embedding),
                           (ctattn::sequential<block>, layers), (ctattn::class_token_pool, pool),
                           (ctattn::linear<float, width, 2, ctattn::out_by_in, true>, mlp_head));
};

/// The weights: each tensor's values in [-1, 1) scaled by 1 / sqrt(its fan-in) (so activations keep their size
/// through the layers, as trained ones do), the norms' gains near 1.
inline constexpr kwt_tiny weights = [] {
  kwt_tiny m{};
  synthetic::fill_weights(m, 0x5eed'0001u, {.feed_forward_out = 0.18f, .other = 0.25f});
  return m;
}();

/// Frames with a keyword-like bump in frames 12-30 whose shape depends on `seed`.
constexpr input frames_of(std::uint32_t seed) noexcept { return synthetic::keyword_frames<input>(seed, 12, 31); }

inline constexpr std::array<input, 4> calibration{frames_of(11), frames_of(12), frames_of(13), frames_of(14)};

/// The activations' ranges over the calibration inputs, recorded by the compiler.
inline constexpr auto recorded = [] {
  ctattn::activation_ranges<32> r{};
  for (const auto& x : calibration) (void)ctattn::record_ranges(weights, x, r);
  return r;
}();
static_assert(!recorded.overflowed, "the recorder's capacity is too small for the model's activations");
inline constexpr auto ranges = recorded.table();

/// The int8 model, quantized by the compiler.
using int8_kwt_tiny = ctattn::quantized_model<kwt_tiny, ranges>;
inline constexpr int8_kwt_tiny int8_weights = ctattn::quantize<ranges>(weights);
using int8_input = decltype(ctattn::quantize<int8_kwt_tiny::first_layer::input_quantization>(input{}));

inline constexpr ctattn::footprint float_footprint = ctattn::layer_footprint<kwt_tiny, input>;
inline constexpr ctattn::footprint int8_footprint = ctattn::layer_footprint<int8_kwt_tiny, int8_input>;

// KWT-Tiny's budget: one int8 inference (input, output, activations and scratch) in under 64 KB of RAM, and less
// flash and RAM than the float model.
static_assert(int8_footprint.ram_bytes() < 64 * 1024, "one int8 inference of KWT-Tiny must take under 64 KB of RAM");
static_assert(int8_footprint.weight_bytes < float_footprint.weight_bytes);
static_assert(int8_footprint.ram_bytes() < float_footprint.ram_bytes());
#if defined(CTATTN_FIRMWARE_STACK_BYTES)
static_assert(int8_footprint.ram_bytes() <= CTATTN_FIRMWARE_STACK_BYTES,
              "one int8 inference of KWT-Tiny must fit the stack this board's images reserve");
#endif

}  // namespace kwt

/// The float model on two inputs (boards with an FPU), bit for bit with the compiler's evaluation.
struct kwt_tiny {
  static constexpr const char* name = "KWT-Tiny-size keyword transformer in float: 49 frames, 1 layer (d_model 16)";
  using logits = decltype(kwt::weights.forward(kwt::input{}));
  static constexpr ctattn::footprint footprint = kwt::float_footprint;

  struct inputs {
    std::array<kwt::input, 2> frames;
  };
  struct outputs {
    logits first, second;
  };

  static constexpr inputs example() noexcept { return {{kwt::frames_of(101), kwt::frames_of(202)}}; }
  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {kwt::weights.forward(in.frames[0]), kwt::weights.forward(in.frames[1])};
  }
  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("float logits of input 0", &outputs::first);
    f("float logits of input 1", &outputs::second);
  }
};

/// The int8 model on the same two inputs, quantized once by the compiler: integers only on the target.
struct kwt_tiny_int8 {
  static constexpr const char* name = "KWT-Tiny-size keyword transformer in int8: 49 frames, 1 layer (d_model 16)";
  using logits = decltype(kwt::int8_weights.forward(kwt::int8_input{}));
  static constexpr ctattn::footprint footprint = kwt::int8_footprint;

  struct inputs {
    std::array<kwt::int8_input, 2> frames;
  };
  struct outputs {
    logits first, second;
  };

  static constexpr inputs example() noexcept {
    constexpr auto q = kwt::int8_kwt_tiny::first_layer::input_quantization;
    return {{ctattn::quantize<q>(kwt::frames_of(101)), ctattn::quantize<q>(kwt::frames_of(202))}};
  }
  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {kwt::int8_weights.forward(in.frames[0]), kwt::int8_weights.forward(in.frames[1])};
  }
  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 logits of input 0", &outputs::first);
    f("int8 logits of input 1", &outputs::second);
  }
};

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_KWT_TINY_HPP
