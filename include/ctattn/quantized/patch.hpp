// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_PATCH_HPP
#define CTATTN_QUANTIZED_PATCH_HPP

/// \file
/// Patch embeddings in int8 (the float layers are in ctattn/layers/patch.hpp): the patches of an int8 input gathered
/// as the float layer gathers them (ctattn/detail/patches.hpp), then projected by a per-channel `qlinear`, TFLite's
/// CONV_2D with stride = kernel as one FULLY_CONNECTED over the patches.
///
/// | entity                                          | what                                                  |
/// |-------------------------------------------------|-------------------------------------------------------|
/// | `qpatch_embedding<Geometry, Linear>`            | the int8 layer: the cut and its `qlinear`             |
/// | `quantize_patch_embedding<QIn, QOut>(layer)`    | a float `patch_embedding_1d` or `patch_embedding_2d` quantized |

#include <cstddef>
#include <utility>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/detail/patches.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/qmatrix.hpp"

namespace ctattn {

/// A patch embedding in int8: x's patches (int8, x's quantization) gathered one per row, then `project`ed by the
/// `qlinear` `projection`.
///
/// | operand      | shape                                                                 |
/// |--------------|-----------------------------------------------------------------------|
/// | `forward(x)` | the float layer's input rows, `Linear::input_quantization` -> tokens x D, `Linear::output_quantization` |
///
/// Example: `const auto tokens = ctattn::quantize_patch_embedding<q_in, q_out>(model.proj).forward(image_q);`
template <typename Geometry, typename Linear>
struct qpatch_embedding {
  using geometry = Geometry;
  static constexpr auto output_extent = Linear::output_extent;
  static constexpr quantization input_quantization = Linear::input_quantization;
  static constexpr quantization output_quantization = Linear::output_quantization;

  Linear projection{};

  /// The patches of x, one per row, in the float layer's order.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr auto patches(const X& x) noexcept {
    basic_qmatrix<Geometry::template tokens<X::rows>, Geometry::width, X::quant> p;
    Geometry::gather(x.elements, p.elements);
    return p;
  }

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(patches(x), projection);
  }

  /// The memory of `forward(x)` on an X: the projection's on the patches, and the patches on the stack.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using gathered = decltype(patches(std::declval<const X&>()));
    footprint f = Linear::template footprint_of<gathered>();
    f.input_bytes = sizeof(X);
    f.stack_bytes += sizeof(gathered);
    return f;
  }

  friend constexpr bool operator==(const qpatch_embedding&, const qpatch_embedding&) = default;
};

/// A float patch embedding (`ctattn::patch_embedding_1d`, `ctattn::patch_embedding_2d`) quantized: its projection by
/// `quantize_linear<QIn, QOut, Weights>` (per-channel weight scales; int8 or int4 weights), the cut unchanged.
///
/// Example: `constexpr auto embed_q = ctattn::quantize_patch_embedding<q_image, q_tokens>(model.proj);`
template <quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel, typename L>
  requires requires { typename L::geometry; }
[[nodiscard]] constexpr auto quantize_patch_embedding(const L& layer) noexcept {
  using linear_type = decltype(quantize_linear<QIn, QOut, Weights, Granularity>(layer.projection));
  return qpatch_embedding<typename L::geometry, linear_type>{
      quantize_linear<QIn, QOut, Weights, Granularity>(layer.projection)};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_PATCH_HPP
