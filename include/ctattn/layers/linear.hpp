// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_LINEAR_HPP
#define CTATTN_LAYERS_LINEAR_HPP

/// \file
/// `ctattn::linear` as a layer (PyTorch's nn.Linear): `ctattn::forward(linear, x)` projects the rows of x
/// (ctattn/layers/layer.hpp), `ctattn::layer_footprint` gives its memory, and `parameters(linear)` names its
/// tensors `weight` and `bias`, so a model's linear layers load from a PyTorch `state_dict` by name.
///
/// | operand  | shape                                           |
/// |----------|-------------------------------------------------|
/// | `weight` | Out x In (`out_by_in`, PyTorch's) or In x Out (`in_by_out`) |
/// | `bias`   | 1 x Out, when it has one                        |
/// | input    | n x In                                          |
/// | result   | n x Out                                         |
///
/// Rationale: the type itself is defined one tier down, in ctattn/attention/projection.hpp, because attention is
/// built from it (W_Q, W_K, W_V and W_O are linears) and a tier never includes the tier above it. Everything that
/// makes it a layer is here.
///
/// Example:
/// \code
///   constexpr ctattn::linear<float, 32, 10, ctattn::out_by_in, true> head{};
///   constexpr auto logits = ctattn::forward(head, x);        // x: n x 32, logits: n x 10
///   static_assert(ctattn::parameter_count(head) == 32 * 10 + 10);
/// \endcode

#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/attention/projection.hpp"
#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/parameters.hpp"

namespace ctattn {

/// A `linear` layer's parameters by PyTorch's nn.Linear names: `weight` (out x in; viewed transposed when stored
/// in x out) and `bias` (when it has one).
///
/// Example: `ctattn::for_each_parameter(head, [](std::string_view name, const auto& t) { ... });   // weight, bias`
template <typename P>
  requires Projection<P>
[[nodiscard]] constexpr auto parameters(P& p) noexcept {
  using plain = std::remove_const_t<P>;
  constexpr bool transposed = std::is_same_v<typename plain::layout, in_by_out>;
  if constexpr (plain::has_bias) {
    return boost::hana::make_tuple(parameter<transposed>("weight", p.weight), vector_parameter("bias", p.bias));
  } else {
    return boost::hana::make_tuple(parameter<transposed>("weight", p.weight));
  }
}

}  // namespace ctattn

#endif  // CTATTN_LAYERS_LINEAR_HPP
