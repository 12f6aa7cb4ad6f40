#ifndef CTATTN_FIRMWARE_MODELS_SYNTHETIC_HPP
#define CTATTN_FIRMWARE_MODELS_SYNTHETIC_HPP

/// \file
/// Numbers fixed by their place, for the keyword transformers the images run with made-up weights (KWT-Tiny's
/// size, KWT-1): the weights and the input frames. The same numbers at compile time and at run time, so the build
/// machine's reference tools and the images see one model.
///
/// | function                | gives                                                        |
/// |-------------------------|--------------------------------------------------------------|
/// | `values{seed}.next()`   | the next number in [-1, 1), at most 24 significant bits      |
/// | `fill_weights(m, ...)`  | every parameter of `m` scaled by its kind, gains near 1      |
/// | `keyword_frames<M>(..)` | an `M` (frames x features) of noise with a keyword-like bump |
///
/// \code
/// kwt_tiny m{};
/// ctattn_firmware::models::synthetic::fill_weights(m, 0x5eed'0001u, {.feed_forward_out = 0.18f, .other = 0.25f});
/// \endcode

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ctattn/layers.hpp>

namespace ctattn_firmware::models::synthetic {

/// xorshift32 scaled to [-1, 1) with at most 24 significant bits (exact in float).
struct values {
  std::uint32_t state;
  constexpr float next() noexcept {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return static_cast<float>(static_cast<std::int32_t>(state >> 8) - (std::int32_t{1} << 23)) /
           static_cast<float>(std::int32_t{1} << 23);
  }
};

/// How `fill_weights` scales each kind of tensor: about 1 / sqrt(its fan-in), so activations keep their size
/// through the layers as trained ones do.
struct weight_scales {
  float feed_forward_out;  ///< `linear2.weight`
  float other;             ///< every other weight and bias (embeddings: 1)
};

/// Fills every parameter of `m` from `values{seed}` in `ctattn::for_each_parameter`'s order: embeddings in
/// [-1, 1), the norms' gains in [7/8, 9/8), the rest scaled by `scales`; every LayerNorm's eps is 1e-6 (ARM's KWT).
template <typename Model>
constexpr void fill_weights(Model& m, std::uint32_t seed, weight_scales scales) noexcept {
  values v{seed};
  ctattn::for_each_parameter(m, [&](std::string_view name, const auto& view) {
    const bool gain = name.ends_with("norm1.weight") || name.ends_with("norm2.weight");
    const float scale = name.ends_with("linear2.weight") ? scales.feed_forward_out
                                                         : (name.ends_with("embedding") ? 1.0f : scales.other);
    for (std::size_t k = 0; k < view.size; ++k) view[k] = gain ? 1.0f + v.next() / 8 : v.next() * scale;
  });
  (void)ctattn::set_every_setting(m, "eps", 1e-6);
}

/// Frames of noise in [-1, 1) with a bump in frames [bump_first, bump_end) whose shape (0, 0.5 or 1 per feature)
/// depends on `seed`.
template <typename Frames>
constexpr Frames keyword_frames(std::uint32_t seed, std::size_t bump_first, std::size_t bump_end) noexcept {
  values v{seed};
  Frames x{};
  for (std::size_t t = 0; t < Frames::rows; ++t) {
    for (std::size_t f = 0; f < Frames::cols; ++f) {
      const float bump = t >= bump_first && t < bump_end ? 0.5f : 0.0f;
      x(t, f) = v.next() + bump * static_cast<float>((f + seed) % 3);
    }
  }
  return x;
}

}  // namespace ctattn_firmware::models::synthetic

#endif  // CTATTN_FIRMWARE_MODELS_SYNTHETIC_HPP
