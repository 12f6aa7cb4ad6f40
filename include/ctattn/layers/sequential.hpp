// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_SEQUENTIAL_HPP
#define CTATTN_LAYERS_SEQUENTIAL_HPP

/// \file
/// `ctattn::sequential`: layers composed in order (nn.Sequential), held in a Boost.Hana tuple, with every width
/// checked where the model is declared.

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/tuple.hpp>

#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/linear.hpp"

namespace ctattn {

namespace detail {
// The input rules of a chain's first element on an X, where they are a layer's on a matrix (element type and
// width); none otherwise (an embedding on ids, an activation, a nested chain checks its own).
template <typename L, typename X>
struct chain_input_rules_of {
  using type = rule_list<>;
};
template <typename L, typename X>
  requires FixedMatrix<X> && requires {
    typename L::value_type;
    L::input_extent;
  }
struct chain_input_rules_of<L, X> {
  using type = layer_input_rules<L, X>;
};
template <typename L, typename X>
using chain_input_rules = typename chain_input_rules_of<L, X>::type;

// The first of a pack of types (void for none).
template <typename... Ts>
struct first_type_of {
  using type = void;
};
template <typename T, typename... Ts>
struct first_type_of<T, Ts...> {
  using type = T;
};
template <typename... Ts>
using first_type = typename first_type_of<Ts...>::type;

template <typename... Layers>
inline constexpr std::array<bool, sizeof...(Layers)> fixed_width_layers{!keeps_width<Layers>...};

// The index of the first layer at or after `from` with widths of its own (`count` when there is none).
template <typename... Layers>
constexpr std::size_t next_fixed(std::size_t from) noexcept {
  constexpr auto fixed = fixed_width_layers<Layers...>;
  for (std::size_t i = from; i < fixed.size(); ++i) {
    if (fixed[i]) return i;
  }
  return fixed.size();
}

// Whether a layer has the widths a chain's link compares: an element type and an output width (then it can feed
// the next layer), an input width (then it can be fed).
template <typename L>
concept HasOutputWidth = requires {
  typename L::value_type;
  L::output_extent;
};
template <typename L>
concept HasInputWidth = requires {
  typename L::value_type;
  L::input_extent;
};

// The rules between element K of a chain (a sequential's layers, a model's members) and the next one with widths of
// its own (activations pass the width on): element types under `Operation`, then the widths by `WidthRule`, which
// names k, both elements and both widths. Elements without widths (int8 layers, whose quantizations their own calls
// check; a nested model) link to nothing.
template <std::size_t K, typename Operation,
          template <typename, typename, typename, typename, typename> class WidthRule, typename... Layers>
struct link_rules {
  using type = rule_list<>;
};
template <std::size_t K, typename Operation,
          template <typename, typename, typename, typename, typename> class WidthRule, typename... Layers>
  requires(next_fixed<Layers...>(K + 1) < sizeof...(Layers) && HasOutputWidth<layer_at<K, Layers...>> &&
           HasInputWidth<layer_at<next_fixed<Layers...>(K + 1), Layers...>>)
struct link_rules<K, Operation, WidthRule, Layers...> {
  using layer = layer_at<K, Layers...>;
  using next = layer_at<next_fixed<Layers...>(K + 1), Layers...>;
  using type =
      rule_list<shape_error::element_types_must_match<Operation, typename layer::value_type, typename next::value_type>,
                WidthRule<count<K>, layer, next, dim_of<layer::output_extent>, dim_of<next::input_extent>>>;
};

template <typename Indices, typename Operation,
          template <typename, typename, typename, typename, typename> class WidthRule, typename... Layers>
struct chain_links_of;
template <std::size_t... K, typename Operation,
          template <typename, typename, typename, typename, typename> class WidthRule, typename... Layers>
struct chain_links_of<std::index_sequence<K...>, Operation, WidthRule, Layers...> {
  using type = rule_list<typename link_rules<K, Operation, WidthRule, Layers...>::type...>;
};

/// The links of a chain's elements, each feeding the next (see `link_rules`).
template <typename Operation, template <typename, typename, typename, typename, typename> class WidthRule,
          typename... Layers>
using chain_links = typename chain_links_of<std::index_sequence_for<Layers...>, Operation, WidthRule, Layers...>::type;

template <typename... Layers>
struct sequence_rules_of {
  using type = rule_list<shape_error::sequence_must_not_be_empty<op::sequential, count<sizeof...(Layers)>>,
                         chain_links<op::sequential, shape_error::layer_output_must_match_next_input, Layers...>>;
};

/// The rules of `sequential<Layers...>`: at least one layer; each layer with widths feeds the next one.
template <typename... Layers>
using sequence_rules = typename sequence_rules_of<Layers...>::type;

// Names "0", "1", ... of a sequence's layers (nn.Sequential's), for up to 100 layers.
inline constexpr auto index_names = [] {
  std::array<std::array<char, 3>, 100> names{};
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i < 10) {
      names[i] = {static_cast<char>('0' + i), 0, 0};
    } else {
      names[i] = {static_cast<char>('0' + i / 10), static_cast<char>('0' + i % 10), 0};
    }
  }
  return names;
}();
constexpr std::string_view index_name(std::size_t i) noexcept {
  return {index_names[i].data(), i < 10 ? std::size_t{1} : std::size_t{2}};
}

// A sequence's element type and widths: its first layer with widths' input, its last one's output. A sequence of
// activations only keeps the width.
template <bool KeepsWidth, typename... Layers>
struct sequence_shape {
  static constexpr bool keeps_width = true;
};
template <typename... Layers>
struct sequence_shape<false, Layers...> {
  static constexpr std::size_t last_fixed = [] {
    constexpr auto fixed = fixed_width_layers<Layers...>;
    std::size_t last = 0;
    for (std::size_t i = 0; i < fixed.size(); ++i) {
      if (fixed[i]) last = i;
    }
    return last;
  }();
  using first_layer = layer_at<next_fixed<Layers...>(0), Layers...>;
  using last_layer = layer_at<last_fixed, Layers...>;
  using value_type = typename first_layer::value_type;
  static constexpr auto input_extent = first_layer::input_extent;
  static constexpr auto output_extent = last_layer::output_extent;
};

}  // namespace detail

/// Layers applied in order, like nn.Sequential: y = layer_{n-1}(... layer_1(layer_0(x))). Widths are checked
/// where the type is formed: layer k's output width must be the input width of the next layer that has widths
/// (activations pass the width through), with one error naming k, both layers and both widths.
///
/// | operand / member | shape                                                          |
/// |------------------|----------------------------------------------------------------|
/// | input            | n x (the first layer with widths)'s input width                |
/// | result           | n x (the last layer with widths)'s output width                |
/// | `layers`         | `boost::hana::tuple<Layers...>`; parameters named "0.", "1.", ... |
///
/// Example:
/// \code
///   constexpr ctattn::sequential mlp{ctattn::linear<float, 4, 8, ctattn::out_by_in, true>{}, ctattn::relu{},
///                                    ctattn::linear<float, 8, 2, ctattn::out_by_in, true>{}};
///   constexpr auto y = ctattn::forward(mlp, x);   // x: n x 4, y: n x 2
/// \endcode
template <typename... Layers>
struct sequential : detail::sequence_shape<detail::next_fixed<Layers...>(0) == sizeof...(Layers), Layers...> {
  static_assert((detail::first_broken<detail::sequence_rules<Layers...>>::check(), true));
  static constexpr bool well_formed = rules_hold<detail::sequence_rules<Layers...>>;

  boost::hana::tuple<Layers...> layers;

  constexpr sequential() noexcept = default;
  constexpr explicit sequential(const Layers&... given) noexcept
    requires(sizeof...(Layers) > 0)
      : layers(given...) {}

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    constexpr bool memory_kept =
        (detail::is_memory_option<Options>::value || ...) || !(detail::attends_to_memory<Layers> || ...);
    if constexpr (!shape_error::decoder_needs_its_memory<op::sequential, memory_kept>::check()) {
      return x;
    } else if constexpr (!detail::first_broken<detail::chain_input_rules<detail::first_type<Layers...>, X>>::check()) {
      return x;  // the first layer's input rules, checked from this frame (model.hpp's forward says why)
    } else if constexpr (well_formed) {
      return detail::run_chain<sizeof...(Layers) - 1>(
          [&](auto i) -> const auto& { return boost::hana::at_c<decltype(i)::value>(layers); }, x, options...);
    } else {
      return x;
    }
  }

  /// The result of a forward on an X, layer after layer (known without running one: a decoder layer's forward
  /// also needs the memory of the call's options).
  template <typename X>
  using result_of = typename detail::sequence_result<X, Layers...>::type;

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): the layers' calls composed
  /// (`ctattn::composed`: every layer's result but the last held on the stack, and the deepest layer's stack).
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept
    requires(sizeof...(Layers) > 0)
  {
    return detail::held_in<sequential>(detail::sequence_footprint<X, Layers...>::of());
  }

  template <detail::SameLayer<sequential> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return boost::hana::make_tuple(sublayer(detail::index_name(I), boost::hana::at_c<I>(self.layers))...);
    }(std::index_sequence_for<Layers...>{});
  }
  /// Layer by layer.
  friend constexpr bool operator==(const sequential& a, const sequential& b) noexcept {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return ((boost::hana::at_c<I>(a.layers) == boost::hana::at_c<I>(b.layers)) && ...);
    }(std::index_sequence_for<Layers...>{});
  }
};

template <typename... Layers>
sequential(const Layers&...) -> sequential<Layers...>;

namespace detail {
template <typename... Layers>
inline constexpr bool attends_to_memory<sequential<Layers...>> = (attends_to_memory<Layers> || ...);
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_LAYERS_SEQUENTIAL_HPP
