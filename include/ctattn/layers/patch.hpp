// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_PATCH_HPP
#define CTATTN_LAYERS_PATCH_HPP

/// \file
/// Patch embeddings: the front end of a vision or audio transformer, a convolution whose stride is its kernel and
/// that has no padding, so that each patch of the input becomes one token. `patch_embedding_1d` is
/// `nn.Conv1d(C, D, kernel_size=K, stride=K)` over a sequence, `patch_embedding_2d` is
/// `nn.Conv2d(C, D, kernel_size=(PH, PW), stride=(PH, PW))` over an image (timm's `patch_embed.proj`).
///
/// Inputs keep ctattn's layout, one row per position and the channels as columns: a sequence of n rows of C
/// features (PyTorch's [C, n] transposed), an image of H x W rows of C channels in row-major pixel order
/// (PyTorch's [C, H, W] permuted to [H, W, C], the layout of a camera's buffer and of TFLite). The tokens come out
/// in PyTorch's order (`conv(x).flatten(2).transpose(1, 2)`): patches row by row.
///
/// Each layer gathers every patch into one row in PyTorch's weight order (channel, then the offsets within the
/// patch: `torch.nn.functional.unfold`'s order) and projects the rows with a `ctattn::linear`, so the products run
/// on the build's fastest kernels, and the weights are PyTorch's, element for element, under the names `weight`
/// ([D, C, K] or [D, C, PH, PW]) and `bias` ([D]).
/// Rationale: the gathered copy costs the input's size on the stack and one pass over it, against a product of
/// D multiply-adds per input element; a product reading the patches in place would need a kernel of its own per
/// backend.

#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/detail/patches.hpp"
#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/linear.hpp"
#include "ctattn/layers/parameters.hpp"
#include "ctattn/layers/rules.hpp"

namespace ctattn {

namespace detail {
// A patch embedding's projection: out x (channels * patch elements), PyTorch's weight flattened in its own order.
template <typename T, std::size_t Inputs, auto D, bool Bias>
using patch_projection = linear<T, Inputs, D, out_by_in, Bias>;

// A patch embedding's parameters by nn.Conv1d's and nn.Conv2d's names: `weight` in PyTorch's shape Dims... (out,
// channels, then the patch's sides) over the projection's rows, and `bias`.
template <std::size_t... Dims, typename Projection>
[[nodiscard]] constexpr auto patch_parameters(Projection& projection) noexcept {
  if constexpr (std::remove_const_t<Projection>::has_bias) {
    return boost::hana::make_tuple(reshaped_parameter<Dims...>("weight", projection.weight),
                                   vector_parameter("bias", projection.bias));
  } else {
    return boost::hana::make_tuple(reshaped_parameter<Dims...>("weight", projection.weight));
  }
}

// The rules of a 1-d patch embedding's call: the element type, the channels, then whole patches along the rows.
template <typename L, typename X>
using patch_1d_rules =
    rule_list<layer_input_rules<L, X>,
              shape_error::patch_must_divide_input<op::patch_embedding, dim<axis::sequence_length, X::rows>,
                                                   dim<axis::patch_length, L::kernel>>>;

// The rules of a 2-d patch embedding's type: whole patches along both sides of the image.
template <std::size_t Height, std::size_t Width, std::size_t PatchHeight, std::size_t PatchWidth>
using patch_2d_type_rules =
    rule_list<shape_error::patch_must_divide_input<op::patch_embedding, dim<axis::image_height, Height>,
                                                   dim<axis::patch_height, PatchHeight>>,
              shape_error::patch_must_divide_input<op::patch_embedding, dim<axis::image_width, Width>,
                                                   dim<axis::patch_width, PatchWidth>>>;

// The rules of a 2-d patch embedding's call: the element type, the channels, then the image's pixels as rows.
template <typename L, typename X>
using patch_2d_rules =
    rule_list<layer_input_rules<L, X>,
              shape_error::image_rows_must_match_patch_layer<op::patch_embedding, dim<axis::input_rows, X::rows>,
                                                             dim<axis::image_pixels, L::height * L::width>>>;
}  // namespace detail

/// nn.Conv1d(Channels, D, kernel_size=Kernel, stride=Kernel) with no padding, as a layer: each run of Kernel rows
/// becomes one token.
///
/// | operand / member | shape                                                              |
/// |------------------|--------------------------------------------------------------------|
/// | input            | n x Channels, n a multiple of Kernel (a compile error otherwise)   |
/// | result           | n / Kernel x D                                                     |
/// | `weight`         | PyTorch's [D, Channels, Kernel] (`projection.weight`, D x Channels Kernel) |
/// | `bias`           | [D], when `Bias`                                                   |
///
/// y(p, d) = bias(d) + sum over c, k of weight(d, c, k) x(p Kernel + k, c). With Kernel 1 it is nn.Linear on each
/// row (KWT's embedding of a spectrogram's frames).
///
/// Example:
/// \code
///   ctattn::patch_embedding_1d<float, 3, 4, 8> embed{};
///   auto tokens = ctattn::forward(embed, ctattn::matrix<float, 12, 3>{});   // 3 x 8
/// \endcode
template <typename T, std::size_t Channels, std::size_t Kernel, auto D, bool Bias = true>
struct patch_embedding_1d {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<Channels>;
  static constexpr auto output_extent = normalize_extent<D>;
  static constexpr std::size_t channels = Channels;
  static constexpr std::size_t kernel = Kernel;
  /// The cut, shared with the int8 form.
  using geometry = detail::patches_1d<Channels, Kernel>;
  using projection_type = detail::patch_projection<T, geometry::width, output_extent, Bias>;

  projection_type projection{};

  /// The patches of x, one per row, each in PyTorch's weight order (channel, then position in the patch).
  template <FixedMatrix X>
  [[nodiscard]] static constexpr auto patches(const X& x) noexcept {
    basic_matrix<T, geometry::template tokens<X::rows>, geometry::width> p{};
    geometry::gather(x.elements, p.elements);
    return p;
  }

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (detail::first_broken<detail::patch_1d_rules<patch_embedding_1d, X>>::check()) {
      return ctattn::forward(projection, patches(x), options...);
    } else {
      return basic_matrix<T, std::size_t{1}, output_extent>{};
    }
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): the gathered patches on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = detail::layer_result<patch_embedding_1d, X>;
    return detail::call_footprint<patch_embedding_1d, X, result>(sizeof(decltype(patches(std::declval<const X&>()))));
  }

  /// nn.Conv1d's parameters: `weight` [D, Channels, Kernel] and `bias` [D].
  template <detail::SameLayer<patch_embedding_1d> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return detail::patch_parameters<extent_size(output_extent), Channels, Kernel>(self.projection);
  }
  friend constexpr bool operator==(const patch_embedding_1d&, const patch_embedding_1d&) = default;
};

/// nn.Conv2d(Channels, D, kernel_size=(PatchHeight, PatchWidth), stride=(PatchHeight, PatchWidth)) with no padding,
/// as a layer over a Height x Width image: each patch becomes one token, patches row by row (a ViT's patch
/// embedding). The patch must divide the image (a compile error, with the rule's sentence, where the type is
/// formed).
///
/// | operand / member | shape                                                              |
/// |------------------|--------------------------------------------------------------------|
/// | input            | Height Width x Channels: the pixels in row-major order, channels as columns |
/// | result           | (Height / PatchHeight) (Width / PatchWidth) x D                    |
/// | `weight`         | PyTorch's [D, Channels, PatchHeight, PatchWidth]                   |
/// | `bias`           | [D], when `Bias`                                                   |
///
/// Example:
/// \code
///   ctattn::patch_embedding_2d<float, 3, 32, 32, 8, 8, 64> embed{};   // 16 patches of 8 x 8 x 3
///   auto tokens = ctattn::forward(embed, ctattn::matrix<float, 32 * 32, 3>{});   // 16 x 64
/// \endcode
template <typename T, std::size_t Channels, std::size_t Height, std::size_t Width, std::size_t PatchHeight,
          std::size_t PatchWidth, auto D, bool Bias = true>
struct patch_embedding_2d {
  static_assert((detail::first_broken<detail::patch_2d_type_rules<Height, Width, PatchHeight, PatchWidth>>::check(),
                 true));
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<Channels>;
  static constexpr auto output_extent = normalize_extent<D>;
  static constexpr std::size_t channels = Channels;
  static constexpr std::size_t height = Height;
  static constexpr std::size_t width = Width;
  static constexpr std::size_t patch_height = PatchHeight;
  static constexpr std::size_t patch_width = PatchWidth;
  /// The cut, shared with the int8 form.
  using geometry = detail::patches_2d<Channels, Height, Width, PatchHeight, PatchWidth>;
  /// The tokens: patches per column times patches per row (1 when the patch does not divide the image, which is
  /// refused).
  static constexpr std::size_t tokens = geometry::template tokens<Height * Width>;
  using projection_type = detail::patch_projection<T, geometry::width, output_extent, Bias>;

  projection_type projection{};

  /// The patches of x (Height Width rows), one per row, each in PyTorch's weight order (channel, then row and
  /// column in the patch).
  template <FixedMatrix X>
  [[nodiscard]] static constexpr auto patches(const X& x) noexcept {
    basic_matrix<T, tokens, geometry::width> p{};
    geometry::gather(x.elements, p.elements);
    return p;
  }

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (rules_hold<detail::patch_2d_type_rules<Height, Width, PatchHeight, PatchWidth>> &&
                  detail::first_broken<detail::patch_2d_rules<patch_embedding_2d, X>>::check()) {
      return ctattn::forward(projection, patches(x), options...);
    } else {
      return basic_matrix<T, tokens, output_extent>{};
    }
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): the gathered patches on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = detail::layer_result<patch_embedding_2d, X>;
    return detail::call_footprint<patch_embedding_2d, X, result>(sizeof(decltype(patches(std::declval<const X&>()))));
  }

  /// nn.Conv2d's parameters: `weight` [D, Channels, PatchHeight, PatchWidth] and `bias` [D].
  template <detail::SameLayer<patch_embedding_2d> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return detail::patch_parameters<extent_size(output_extent), Channels, PatchHeight, PatchWidth>(self.projection);
  }
  friend constexpr bool operator==(const patch_embedding_2d&, const patch_embedding_2d&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_PATCH_HPP
