// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_FEED_FORWARD_HPP
#define CTATTN_LAYERS_FEED_FORWARD_HPP

/// \file
/// Position-wise feed-forward blocks and residual connections.

#include <cstddef>

#include <boost/hana/tuple.hpp>

#include "ctattn/layers/activation.hpp"
#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/linear.hpp"
#include "ctattn/matrix/elementwise.hpp"

namespace ctattn {

/// The transformer's feed-forward block: linear2(activation(linear1(x))), as in nn.TransformerEncoderLayer
/// (whose parameters it names `linear1` and `linear2`).
///
/// | operand / member | shape                                                |
/// |------------------|------------------------------------------------------|
/// | input, result    | n x DModel                                           |
/// | `linear1`        | DModel -> Hidden (`ctattn::linear`, weights in `Layout`) |
/// | `linear2`        | Hidden -> DModel                                     |
///
/// Example:
/// \code
///   ctattn::feed_forward<float, 64, 256, ctattn::gelu> ff{};   // PyTorch's out x in weights, with biases
///   auto y = ctattn::forward(ff, x);                           // x, y: n x 64
/// \endcode
template <typename T, auto DModel, auto Hidden, typename Activation = relu, WeightLayout Layout = out_by_in,
          bool HasBias = true>
struct feed_forward {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<DModel>;

  linear<T, DModel, Hidden, Layout, HasBias> linear1{};
  linear<T, Hidden, DModel, Layout, HasBias> linear2{};
  [[no_unique_address]] Activation activation{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (detail::first_broken<detail::layer_input_rules<feed_forward, X>>::check()) {
      return ctattn::forward(linear2, ctattn::forward(activation, ctattn::forward(linear1, x, options...), options...),
                             options...);
    } else {
      return basic_matrix<T, X::row_extent, output_extent>{};
    }
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): the hidden n x Hidden results of
  /// linear1 and of the activation on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using first = linear<T, DModel, Hidden, Layout, HasBias>;
    using hidden = detail::layer_result<first, X>;
    const footprint inner = composed(layer_footprint<first, X>, layer_footprint<Activation, hidden>,
                                     layer_footprint<linear<T, Hidden, DModel, Layout, HasBias>, hidden>);
    return detail::call_footprint<feed_forward, X, basic_matrix<T, X::row_extent, output_extent>>(inner.stack_bytes);
  }

  template <detail::SameLayer<feed_forward> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("linear1", self.linear1), sublayer("linear2", self.linear2));
  }
  /// Its setting (ctattn::for_each_setting): `activation`, as nn.TransformerEncoderLayer names it (none for an
  /// activation of one's own).
  friend constexpr auto settings(const feed_forward& self) noexcept {
    if constexpr (HasSettings<Activation>) {
      return settings(self.activation);
    } else {
      return std::array<setting_entry, 0>{};
    }
  }
  friend constexpr bool operator==(const feed_forward&, const feed_forward&) = default;
};

/// The gated feed-forward block of LLaMA and PaLM (SwiGLU with `silu`, GEGLU with `gelu`):
/// w2(activation(w1(x)) * w3(x)), the product element by element; parameters named `w1`, `w2`, `w3`.
///
/// | operand / member | shape                 |
/// |------------------|-----------------------|
/// | input, result    | n x DModel            |
/// | `w1`, `w3`       | DModel -> Hidden      |
/// | `w2`             | Hidden -> DModel      |
///
/// Example:
/// \code
///   ctattn::gated_feed_forward<float, 64, 172> ff{};   // SwiGLU, no biases, out x in weights
///   auto y = ctattn::forward(ff, x);
/// \endcode
template <typename T, auto DModel, auto Hidden, typename Activation = silu, WeightLayout Layout = out_by_in,
          bool HasBias = false>
struct gated_feed_forward {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<DModel>;

  linear<T, DModel, Hidden, Layout, HasBias> w1{};
  linear<T, Hidden, DModel, Layout, HasBias> w2{};
  linear<T, DModel, Hidden, Layout, HasBias> w3{};
  [[no_unique_address]] Activation activation{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (detail::first_broken<detail::layer_input_rules<gated_feed_forward, X>>::check()) {
      const auto gate = ctattn::forward(activation, ctattn::forward(w1, x, options...), options...);
      return ctattn::forward(w2, hadamard(gate, ctattn::forward(w3, x, options...)), options...);
    } else {
      return basic_matrix<T, X::row_extent, output_extent>{};
    }
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): four n x Hidden results on the stack
  /// (w1's, the gate, w3's and the product).
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using in = linear<T, DModel, Hidden, Layout, HasBias>;
    using hidden = detail::layer_result<in, X>;
    const std::size_t deepest =
        detail::largest(layer_footprint<in, X>.stack_bytes, layer_footprint<Activation, hidden>.stack_bytes,
                        layer_footprint<linear<T, Hidden, DModel, Layout, HasBias>, hidden>.stack_bytes);
    return detail::call_footprint<gated_feed_forward, X, basic_matrix<T, X::row_extent, output_extent>>(
        4 * sizeof(hidden) + deepest);
  }

  template <detail::SameLayer<gated_feed_forward> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("w1", self.w1), sublayer("w2", self.w2), sublayer("w3", self.w3));
  }
  friend constexpr bool operator==(const gated_feed_forward&, const gated_feed_forward&) = default;
};

/// A residual connection around a layer that keeps the width: x + layer(x). Its parameters are the layer's,
/// under the same names.
///
/// | operand | shape      |
/// |---------|------------|
/// | input   | n x d      |
/// | result  | n x d      |
///
/// Example:
/// \code
///   ctattn::residual<ctattn::feed_forward<float, 64, 256>> block{};
///   auto y = ctattn::forward(block, x);   // x + ff(x)
/// \endcode
template <typename Inner>
struct residual {
  static_assert((shape_error::residual_layer_must_keep_width<op::residual, dim_of<Inner::input_extent>,
                                                             dim_of<Inner::output_extent>>::check(),
                 true));
  using value_type = typename Inner::value_type;
  static constexpr auto input_extent = Inner::input_extent;
  static constexpr auto output_extent = Inner::output_extent;

  Inner inner{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    return add(x, ctattn::forward(inner, x, options...));
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): the inner layer's, and its result held
  /// for the sum.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<residual, X, detail::layer_result<Inner, X>>(detail::held(layer_footprint<Inner, X>));
  }

  template <detail::SameLayer<residual> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("", self.inner));
  }
  friend constexpr bool operator==(const residual&, const residual&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_FEED_FORWARD_HPP
