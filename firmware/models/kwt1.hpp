#ifndef CTATTN_FIRMWARE_MODELS_KWT1_HPP
#define CTATTN_FIRMWARE_MODELS_KWT1_HPP

/// \file
/// KWT-1 on the target: 98 MFCC frames of 40 features, each frame embedded by a Linear(40, 64), a class token,
/// learned positions over 99 rows, 12 post-norm encoder layers (d_model 64, 1 head, MLP 256, GELU, eps 1e-6, as
/// ARM's KWT), the class token's row and a Linear head to 35 classes: 611,107 parameters (2,444,528 bytes in float,
/// the LayerNorms' eps included), 73,700,032 multiply-adds per inference (`multiply_adds`).
///
/// The weights are numbers fixed by their place (`make_weights`, usable at compile time and at run time); the
/// images check arithmetic, not accuracy. What the compiler cannot do at this size is a forward pass (70 M
/// multiply-adds), so the build machine does them: `firmware/tools/kwt1_reference.cpp` records the activations'
/// ranges over four calibration inputs and computes the expected logits of the two example inputs, in float
/// (exact arithmetic, static_assert's bits) and in int8, and writes them as headers. The images then quantize the
/// model with `ctattn::quantize<ranges>` in a constant expression (cheap: one pass over the weights) and compare
/// their logits with the build machine's, bit for bit.
///
/// | value           | shape                                                |
/// |-----------------|------------------------------------------------------|
/// | input           | 98 x 40 floats, or int8 in the input's quantization  |
/// | output          | 1 x 35 logits (float, or int8)                       |

#include <cstddef>
#include <cstdint>

#include <ctattn/layers.hpp>

#include "synthetic.hpp"

namespace ctattn_firmware::models::kwt1 {

inline constexpr std::size_t frames = 98;
inline constexpr std::size_t features = 40;
inline constexpr std::size_t width = 64;
inline constexpr std::size_t classes = 35;
inline constexpr std::size_t layers = 12;

using block = ctattn::transformer_encoder_layer<float, width, 1, 256, ctattn::gelu, /*norm_first=*/false>;
using input = ctattn::matrix<float, frames, features>;

/// The model, with the state_dict names of ARM's KWT.
struct model : ctattn::model<model> {
  BOOST_HANA_DEFINE_STRUCT(
      model, (ctattn::linear<float, features, width, ctattn::out_by_in, true>, to_patch_embedding),
      (ctattn::class_token<float, width>, cls_token),
      (ctattn::position_parameter<float, frames + 1, width>, pos_embedding),
      (ctattn::sequential<block, block, block, block, block, block, block, block, block, block, block, block>, layers),
      (ctattn::class_token_pool, pool), (ctattn::linear<float, width, classes, ctattn::out_by_in, true>, mlp_head));
};

/// Multiply-adds of one inference: the embedding, per layer the projections (4 d^2 per token), the products Q K^T
/// and P V (2 n^2 d) and the feed-forward block (2 d d_ff per token), and the head.
inline constexpr std::size_t multiply_adds =
    frames * features * width +
    layers * ((frames + 1) * (4 * width * width + 2 * width * 256) + 2 * (frames + 1) * (frames + 1) * width) +
    width * classes;
// benchmarks/firmware_size.sh --heavy divides the images' instructions by this figure.
static_assert(multiply_adds == 73'700'032, "KWT-1's shape changed: update kwt1_macs in benchmarks/firmware_size.sh");

/// The weights: each tensor's values in [-1, 1) scaled by about 1 / sqrt(its fan-in) (so that activations keep
/// their size through 12 layers, as trained ones do), the norms' gains near 1. The same numbers at compile time (the
/// images) and at run time (the build machine's reference).
constexpr void make_weights(model& m) noexcept {
  synthetic::fill_weights(m, 0x5eed'0101u, {.feed_forward_out = 0.0625f, .other = 0.125f});
}

/// Frames with a keyword-like bump in frames 30-60 whose shape depends on `seed`.
constexpr input frames_of(std::uint32_t seed) noexcept { return synthetic::keyword_frames<input>(seed, 30, 61); }

/// The seeds of the calibration inputs (ranges) and of the two example inputs the images run.
inline constexpr std::uint32_t calibration_seeds[] = {11, 12, 13, 14};
inline constexpr std::uint32_t example_seeds[] = {101, 202};

}  // namespace ctattn_firmware::models::kwt1

#endif  // CTATTN_FIRMWARE_MODELS_KWT1_HPP
