// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_ATTENTION_HPP
#define CTATTN_LAYERS_ATTENTION_HPP

/// \file
/// Attention as a layer: `multi_head_attention_layer` (self-attention: query = key = value = x) over ctattn's
/// multi-head weights, and those weights' parameters by nn.MultiheadAttention's names.

#include <array>
#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/attention/multi_head.hpp"
#include "ctattn/layers/layer.hpp"

namespace ctattn {

namespace detail {
template <typename W>
inline constexpr bool is_multi_head_weights = false;
template <typename T, std::size_t Heads, auto DModel, typename Layout, bool HasBias, auto KDim, auto VDim>
inline constexpr bool
    is_multi_head_weights<basic_multi_head_attention_weights<T, Heads, DModel, Layout, HasBias, KDim, VDim>> = true;

// A projection's weight as PyTorch holds it (out x in), whatever ctattn's layout; const when p is.
template <typename P>
constexpr auto torch_weight(P& p) noexcept {
  return matrix_tensor<std::remove_reference_t<decltype((p.weight))>,
                       std::is_same_v<typename std::remove_const_t<P>::layout, in_by_out>>{&p.weight};
}
template <typename P>
constexpr auto torch_bias(P& p) noexcept {
  return vector_tensor<std::remove_reference_t<decltype((p.bias))>>{&p.bias};
}
template <typename Tensor>
constexpr parameter_entry<Tensor> named(std::string_view name, Tensor tensor) noexcept {
  return {name, tensor};
}
}  // namespace detail

/// Multi-head weights by nn.MultiheadAttention's `state_dict` names: `in_proj_weight` (W_Q, W_K, W_V stacked,
/// 3E x E) when keys and values have width E, else `q_proj_weight`, `k_proj_weight`, `v_proj_weight`; then
/// `in_proj_bias` (3E, with biases), `out_proj.weight`, `out_proj.bias`. Weights stored in x out are viewed
/// transposed, so names and shapes are PyTorch's either way.
///
/// Example:
/// \code
///   ctattn::multi_head_attention_weights<float, 4, 64, ctattn::out_by_in, true> w{};
///   static_assert(ctattn::parameter_name_at(w, 0).view() == "in_proj_weight");
/// \endcode
template <typename W>
  requires detail::is_multi_head_weights<std::remove_const_t<W>>
[[nodiscard]] constexpr auto parameters(W& w) noexcept {
  using detail::named;
  using detail::torch_bias;
  using detail::torch_weight;
  constexpr bool packed = std::is_same_v<decltype(w.query.weight), decltype(w.key.weight)> &&
                          std::is_same_v<decltype(w.query.weight), decltype(w.value.weight)>;
  constexpr bool biased = std::remove_cvref_t<decltype(w.query)>::has_bias;
  if constexpr (packed && biased) {
    return boost::hana::make_tuple(
        stacked_parameter("in_proj_weight", torch_weight(w.query), torch_weight(w.key), torch_weight(w.value)),
        stacked_parameter("in_proj_bias", torch_bias(w.query), torch_bias(w.key), torch_bias(w.value)),
        named("out_proj.weight", torch_weight(w.output)), named("out_proj.bias", torch_bias(w.output)));
  } else if constexpr (packed) {
    return boost::hana::make_tuple(
        stacked_parameter("in_proj_weight", torch_weight(w.query), torch_weight(w.key), torch_weight(w.value)),
        named("out_proj.weight", torch_weight(w.output)));
  } else if constexpr (biased) {
    return boost::hana::make_tuple(
        named("q_proj_weight", torch_weight(w.query)), named("k_proj_weight", torch_weight(w.key)),
        named("v_proj_weight", torch_weight(w.value)),
        stacked_parameter("in_proj_bias", torch_bias(w.query), torch_bias(w.key), torch_bias(w.value)),
        named("out_proj.weight", torch_weight(w.output)), named("out_proj.bias", torch_bias(w.output)));
  } else {
    return boost::hana::make_tuple(
        named("q_proj_weight", torch_weight(w.query)), named("k_proj_weight", torch_weight(w.key)),
        named("v_proj_weight", torch_weight(w.value)), named("out_proj.weight", torch_weight(w.output)));
  }
}

/// nn.MultiheadAttention's setting beside its tensors (ctattn::for_each_setting): `num_heads`.
///
/// Example: `ctattn::for_each_setting(w, f);   // f("num_heads", 4)`
template <typename W>
  requires detail::is_multi_head_weights<std::remove_const_t<W>>
[[nodiscard]] constexpr auto settings(const W&) noexcept {
  return std::array{setting("num_heads", std::size_t{W::query_heads})};
}

/// Multi-head self-attention as a layer: multi_head_attention(x, x, x, weights, Mask{}), with nn.MultiheadAttention's
/// parameters (a transformer layer names it `self_attn`).
///
/// | operand / member | shape                                                   |
/// |------------------|---------------------------------------------------------|
/// | input, result    | n x d_model                                             |
/// | `weights`        | `multi_head_attention_weights<T, Heads, d_model, ...>`  |
/// | `Mask`           | a mask type, default none (`ctattn::causal_mask` for a decoder) |
///
/// Example:
/// \code
///   ctattn::multi_head_attention_layer<ctattn::multi_head_attention_weights<float, 4, 64, ctattn::out_by_in, true>,
///                          ctattn::causal_mask> attn{};
///   auto y = ctattn::forward(attn, x);
/// \endcode
template <typename Weights, typename Mask = no_mask_type>
struct multi_head_attention_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  using value_type = typename Weights::value_type;
  static constexpr auto input_extent = detail::query_projection<Weights>::input_extent;
  static constexpr auto output_extent = detail::output_projection<Weights>::output_extent;

  Weights weights{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (std::is_same_v<Mask, no_mask_type>) {
      return multi_head_attention(x, x, x, weights, options...);
    } else {
      return multi_head_attention(x, x, x, weights, Mask{}, options...);
    }
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): on the stack, Q, K, V, the heads'
  /// concatenation and the output of `multi_head_attention`'s value-returning form, and the kernel's scratch.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr footprint attention = multi_head_attention_footprint<X, X, Weights, 1>;
    return detail::call_footprint<multi_head_attention_layer, X, detail::layer_result<multi_head_attention_layer, X>>(
        attention.workspace_bytes + attention.output_bytes + attention.stack_bytes);
  }

  template <detail::SameLayer<multi_head_attention_layer> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("", self.weights));
  }
  friend constexpr bool operator==(const multi_head_attention_layer&, const multi_head_attention_layer&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_ATTENTION_HPP
