// SPDX-License-Identifier: BSL-1.0
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
/// | `footprint_of<X>()` (static)      | the memory one `forward` on an X holds (`ctattn::layer_footprint`)    |
///
/// `ctattn::linear` is a layer too (ctattn/layers/linear.hpp): `forward` projects with it. The options are
/// `ctattn::exact_arithmetic` or `ctattn::fast_arithmetic` (ctattn/attention/options.hpp); a layer passes them on
/// to every operation inside it.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ctattn/attention/footprint.hpp"
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

// Whether a layer attends to a memory given with its call (`ctattn::with_memory`): a decoder layer, float or int8
// (its `takes_memory`), or a chain holding one at any depth (specialized in sequential.hpp and model.hpp).
template <typename L>
inline constexpr bool attends_to_memory = requires { requires L::takes_memory; };

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
///   constexpr ctattn::linear<float, 4, 2, ctattn::out_by_in, true> head{.weight = {{{1, 0, 0, 0}, {0, 1, 0, 0}}},
///                                                                     .bias = {{{0.5f, -0.5f}}}};
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

namespace detail {
// Runs one layer of a chain (ctattn::sequential, ctattn::model) on x: `ctattn::forward` for a layer on a matrix;
// the object's own `forward` otherwise (an embedding on ids, an int8 layer, a nested model), without the options
// when it takes none (an embedding's lookup has no arithmetic to choose).
template <typename L, typename X, typename... Options>
[[nodiscard]] constexpr auto run_layer(const L& layer, const X& x, const Options&... options) noexcept {
  if constexpr (FixedMatrix<X> && Layer<L>) {
    return ctattn::forward(layer, x, options...);
  } else if constexpr (!requires { layer.forward(x, options...); } && requires { layer.forward(x); }) {
    return layer.forward(x);
  } else {
    return layer.forward(x, options...);
  }
}

// Elements 0 to I of a chain (ctattn::sequential, ctattn::model, ctattn::qchain) run in turn on x, each on the one
// before's result; `get(std::integral_constant<std::size_t, K>{})` gives element K.
// Rationale: each element's input is a local of its own step, whose storage ends before the next element runs, so
// the stack holds one element's input and result at a time. Always inlined, so that the chain is one frame (the
// chain's forward), whose locals of disjoint lifetimes the compiler stores in the same place; called, each step
// would keep its frame (its input, and the slot of its result) during the steps it calls. A fold nesting every call
// in one expression (boost::hana::fold_left) holds every result until the last element returns. Either cost the
// verified sorter one or two 6 x 32 activations more on the Cortex-M, beyond its footprint figure.
template <std::size_t I, typename Get, typename X, typename... Options>
[[nodiscard, gnu::always_inline]] constexpr inline auto run_chain(const Get& get, const X& x,
                                                                  const Options&... options) noexcept {
  if constexpr (I == 0) {
    return run_layer(get(std::integral_constant<std::size_t, 0>{}), x, options...);
  } else {
    const auto input = run_chain<I - 1>(get, x, options...);
    return run_layer(get(std::integral_constant<std::size_t, I>{}), input, options...);
  }
}

// The result of running layer L on an X: its `result_of<X>` where it has one (a decoder layer, whose forward also
// needs a memory), else the type `forward` returns.
template <typename L, typename X>
struct layer_result_of {
  using type = std::remove_cvref_t<decltype(detail::run_layer(std::declval<const L&>(), std::declval<const X&>()))>;
};
template <typename L, typename X>
  requires requires { typename L::template result_of<X>; }
struct layer_result_of<L, X> {
  using type = typename L::template result_of<X>;
};
template <typename L, typename X>
using layer_result = typename layer_result_of<L, X>::type;

// The footprint of one call of layer L on an X giving a Y: the layer's object (its parameters; an empty layer
// holds none), X in, Y out, and `stack` bytes of intermediate results and scratch on the stack.
template <typename L, typename X, typename Y>
[[nodiscard]] constexpr footprint call_footprint(std::size_t stack) noexcept {
  return {std::is_empty_v<L> ? 0 : sizeof(L), sizeof(X), sizeof(Y), 0, stack};
}

// The stack a call needs when its caller holds its result in a temporary: the result and the call's own stack.
[[nodiscard]] constexpr std::size_t held(const footprint& f) noexcept { return f.output_bytes + f.stack_bytes; }

template <typename... Sizes>
[[nodiscard]] constexpr std::size_t largest(std::size_t first, Sizes... more) noexcept {
  ((first = first > more ? first : more), ...);
  return first;
}

template <std::size_t I, typename... Layers>
using layer_at = std::tuple_element_t<I, std::tuple<Layers...>>;

}  // namespace detail

/// The memory one `ctattn::forward(layer, x)` holds, known at compile time, so that firmware can `static_assert`
/// a model against its flash and RAM budgets (the fields are those of `ctattn::footprint`,
/// ctattn/attention/footprint.hpp):
///
/// | field             | a layer's call                                                               |
/// |-------------------|------------------------------------------------------------------------------|
/// | `weight_bytes`    | the layer object: its parameters (and a norm's eps), what flash holds        |
/// | `input_bytes`     | x                                                                            |
/// | `output_bytes`    | the result                                                                   |
/// | `workspace_bytes` | 0: layers keep no storage of the caller's                                    |
/// | `stack_bytes`     | the intermediates the forward holds (layers return results by value), the kernels' scratch |
///
/// Rationale: `stack_bytes` counts every named result and every temporary of a forward as if none shared
/// storage, and the deepest sublayer's stack on top: an upper bound of what the C++ abstract machine holds at
/// once. Compilers share the storage of temporaries of different statements (less) and add call frames and
/// spills (more); firmware/CMakeLists.txt checks the verified model's figure against GCC's call graph.
///
/// A layer gives its figure by a static member `footprint_of<X>()`; `ctattn::linear`'s is here. Models compose
/// the figures of the calls in their forward with `ctattn::composed`.
///
/// Example:
/// \code
///   using ff = ctattn::feed_forward<float, 32, 64>;
///   constexpr auto fp = ctattn::layer_footprint<ff, ctattn::matrix<float, 6, 32>>;
///   static_assert(fp.weight_bytes == sizeof(ff) && fp.stack_bytes == 2 * 6 * 64 * sizeof(float));
/// \endcode
template <typename L, typename X>
inline constexpr footprint layer_footprint = [] {
  // Rationale: names a user's code is unlikely to have at namespace scope (GCC's -Wshadow would warn here about a
  // user's global `x` or `layer`).
  using layer_type = std::remove_cvref_t<L>;
  using input_type = std::remove_cvref_t<X>;
  if constexpr (!detail::model_base_rule<op::model, layer_type>::check()) {
    return footprint{};
  } else if constexpr (Projection<layer_type>) {
    return detail::call_footprint<layer_type, input_type, detail::layer_result<layer_type, input_type>>(0);
  } else if constexpr (!shape_error::layer_must_declare_its_footprint<op::layer, layer_type, input_type, requires {
                         layer_type::template footprint_of<input_type>();
                       }>::check()) {
    return footprint{};
  } else {
    return layer_type::template footprint_of<input_type>();
  }
}();

namespace detail {
// The result of a sequence's calls on an X, each layer on the previous one's result.
template <typename X, typename... Layers>
struct sequence_result {
  using type = X;
};
template <typename X, typename Layer, typename... Rest>
struct sequence_result<X, Layer, Rest...> : sequence_result<layer_result<Layer, X>, Rest...> {};

// The footprints of a sequence's calls, each layer on the previous one's result, composed.
template <typename X, typename... Layers>
struct sequence_footprint {
  template <typename... Done>
  static constexpr footprint of(const Done&... done) noexcept {
    return composed(done...);
  }
};
template <typename X, typename Layer, typename... Rest>
struct sequence_footprint<X, Layer, Rest...> {
  template <typename... Done>
  static constexpr footprint of(const Done&... done) noexcept {
    return sequence_footprint<layer_result<Layer, X>, Rest...>::of(done..., layer_footprint<Layer, X>);
  }
};

// A container's footprint: its layers' calls composed, the weights the container object itself (sizeof counts the
// padding between layers of other alignments, which flash holds too; an int8 model's mixes 1- and 4-byte members).
template <typename Container>
[[nodiscard]] constexpr footprint held_in(footprint f) noexcept {
  f.weight_bytes = sizeof(Container);
  return f;
}

// The two above as templates of the layers alone, for a list of layers given later (a model's members).
template <typename X>
struct sequence_result_of {
  template <typename... Layers>
  using apply = typename sequence_result<X, Layers...>::type;
};
template <typename X>
struct sequence_footprint_of {
  template <typename... Layers>
  using apply = sequence_footprint<X, Layers...>;
};
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_LAYERS_LAYER_HPP
