#ifndef CTATTN_LAYERS_LAYER_HPP
#define CTATTN_LAYERS_LAYER_HPP

/// \file
/// What a layer is, and the one function that runs one: `ctattn::forward(layer, x, options...)`.
///
/// A layer maps an n x in_width matrix to an n x out_width matrix, for any n. It is a struct holding its
/// parameters, with:
///
/// | member / function                 | meaning                                                              |
/// |-----------------------------------|----------------------------------------------------------------------|
/// | `value_type`                      | float or double                                                      |
/// | `input_extent`, `output_extent`   | its widths (sizes or named extents); `keeps_width = true` instead |
/// | `forward(x, options...)`          | the computation: constexpr, noexcept, allocation-free                |
/// | `parameters(layer)` (found by ADL)| its parameters and sublayers, by PyTorch name (ctattn/layers/parameters.hpp) |
///
/// `ctattn::linear` (ctattn/attention/projection.hpp) is a layer too: `forward` projects with it. The options are
/// `ctattn::exact_arithmetic` or `ctattn::fast_arithmetic` (ctattn/attention/options.hpp); a layer passes them on
/// to every operation inside it.

#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/attention/options.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/layers/parameters.hpp"
#include "ctattn/layers/rules.hpp"

namespace ctattn {

/// Whether `L` keeps its input's width (activations): it then has no widths of its own.
template <typename L>
inline constexpr bool keeps_width = [] {
  if constexpr (requires { L::keeps_width; }) {
    return static_cast<bool>(L::keeps_width);
  } else {
    return false;
  }
}();

/// A layer (see this header): widths (or `keeps_width`) and an element type.
///
/// Example:
/// \code
///   static_assert(ctattn::Layer<ctattn::layer_norm<float, 64>> && ctattn::Layer<ctattn::relu>);
/// \endcode
template <typename L>
concept Layer = keeps_width<std::remove_cvref_t<L>> || requires {
  typename std::remove_cvref_t<L>::value_type;
  std::remove_cvref_t<L>::input_extent;
  std::remove_cvref_t<L>::output_extent;
};

namespace detail {
// The rules of a layer's input: its element type and its width.
template <typename L, typename X>
using layer_input_rules =
    rule_list<shape_error::element_types_must_match<op::layer, typename X::value_type, typename L::value_type>,
              shape_error::input_width_must_match_layer<op::layer, dim_of<X::column_extent>, dim_of<L::input_extent>>>;

// The arithmetic a call's options ask for.
template <typename... Options>
inline constexpr arithmetic arithmetic_of = call_options<Options...>::arithmetic_kind;
}  // namespace detail

/// Runs `layer` on the rows of `x`: `y = layer(x)`, n x output_extent.
///
/// | operand  | shape                 |
/// |----------|-----------------------|
/// | `x`      | n x input_extent      |
/// | result   | n x output_extent (n x width for a layer that keeps it) |
///
/// Rules: x holds the layer's element type and has its input width.
///
/// Example:
/// \code
///   constexpr ctattn::linear<float, 4, 2, ctattn::out_by_in, true> head{...};
///   constexpr auto y = ctattn::forward(head, x);   // x: n x 4, y: n x 2
/// \endcode
template <Layer L, FixedMatrix X, typename... Options>
[[nodiscard]] constexpr auto forward(const L& layer, const X& x, const Options&... options) noexcept {
  if constexpr (Projection<L>) {
    if constexpr (detail::first_broken<detail::layer_input_rules<L, X>>::check()) {
      return detail::projected<detail::arithmetic_of<Options...>>(x, layer);
    } else {
      return basic_matrix<typename X::value_type, X::row_extent, L::output_extent>{};
    }
  } else {
    return layer.forward(x, options...);
  }
}

/// A `linear` layer's parameters by PyTorch's nn.Linear names: `weight` (out x in; viewed transposed when stored
/// in x out) and `bias` (when it has one).
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

#endif  // CTATTN_LAYERS_LAYER_HPP
