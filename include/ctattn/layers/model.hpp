// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_MODEL_HPP
#define CTATTN_LAYERS_MODEL_HPP

/// \file
/// A model declared once: a struct deriving from `ctattn::model<itself>` lists its members (type and name) with
/// Boost.Hana's `BOOST_HANA_DEFINE_STRUCT`, and the library derives the rest from that one list.
///
/// | derived                         | from the members, in the order they are declared                        |
/// |---------------------------------|--------------------------------------------------------------------------|
/// | `forward(x, options...)`        | each member runs on the previous one's result (a chain, like nn.Sequential); options reach every member |
/// | `result_of<X>`                  | the type `forward` gives on an X (decoders included)                     |
/// | `footprint_of<X>()` (static)    | the members' calls composed (`ctattn::composed`), for `ctattn::layer_footprint` |
/// | `parameters(model)` (ADL)       | every member under its own name: PyTorch's state_dict names when the members are named as the module's attributes |
/// | `==`                            | member by member                                                         |
///
/// A model whose flow is not a chain (a residual around two members, a decode step) writes its own `forward` or
/// any other function beside the members; the parameters and the footprint stay derived. The same base serves
/// float and int8 models (ctattn/quantized/).
///
/// Example (the verified sorter, examples/verified_model/sorter.hpp):
/// \code
///   struct sorter : ctattn::model<sorter> {
///     BOOST_HANA_DEFINE_STRUCT(sorter,
///         (ctattn::token_embedding<float, 10, 32>, embed),
///         (ctattn::position_embedding<float, 6, 32>, pos),
///         (ctattn::sequential<block, block>, layers),
///         (ctattn::layer_norm<float, 32>, norm),
///         (ctattn::linear<float, 32, 10, ctattn::out_by_in, true>, head));
///   };
///   constexpr auto logits = sorter{}.forward(std::array<int, 6>{3, 1, 4, 1, 5, 9});   // 6 x 10
///   static_assert(ctattn::layer_footprint<sorter, std::array<int, 6>>.ram_bytes() < 64 * 1024);
/// \endcode

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/define_struct.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/tuple.hpp>

#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/parameters.hpp"
#include "ctattn/layers/rules.hpp"
#include "ctattn/layers/sequential.hpp"

namespace ctattn {

template <typename Derived>
struct model;

/// A model declared with `ctattn::model` (see this header): derived from `ctattn::model<M>`.
///
/// Example: `static_assert(ctattn::Model<toy::sorter> && !ctattn::Model<ctattn::relu>);`
template <typename M>
concept Model = requires { typename std::remove_cvref_t<M>::ctattn_model_type; } &&
                std::is_same_v<typename std::remove_cvref_t<M>::ctattn_model_type, std::remove_cvref_t<M>>;

namespace detail {
// The argument and result of the overload of `forward` that ctattn::model declares and never defines, by which
// `DerivedForward` tells the derived forward from one the model declares itself.
struct forward_probe {};
struct derived_forward_marker {};

// The type of the member a Hana accessor (a `member_ptr<T Derived::*, &Derived::m>`) reaches.
template <typename Accessor, typename Derived>
using member_type_of = std::remove_cvref_t<decltype(std::declval<const Accessor&>()(std::declval<Derived&>()))>;

// A model's members: their types, their names, their count. `Accessors` is the type of
// `boost::hana::accessors<Derived>()`: a tuple of (name, accessor) pairs.
template <typename Derived, typename Accessors>
struct members_of {
  static constexpr std::size_t count = 0;
  template <template <typename...> class F>
  using apply = F<>;
};
template <typename Derived, typename... Names, typename... Accessors>
struct members_of<Derived, boost::hana::tuple<boost::hana::pair<Names, Accessors>...>> {
  static constexpr std::size_t count = sizeof...(Names);
  template <template <typename...> class F>
  using apply = F<member_type_of<Accessors, Derived>...>;
  static constexpr std::array<std::string_view, sizeof...(Names)> names{std::string_view(Names::c_str())...};
  // The members in PyTorch's state_dict order: those holding the module's own nn.Parameter first (a class token,
  // positions held as a parameter), then the others, each group in declaration order.
  static constexpr std::array<std::size_t, sizeof...(Names)> state_dict_order = [] {
    constexpr std::array<bool, sizeof...(Names)> own{held_by_module<member_type_of<Accessors, Derived>>...};
    std::array<std::size_t, sizeof...(Names)> order{};
    std::size_t next = 0;
    for (std::size_t pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < own.size(); ++i) {
        if (own[i] == (pass == 0)) order[next++] = i;
      }
    }
    return order;
  }();
};

template <typename Derived, bool Declared = boost::hana::Struct<Derived>::value>
struct model_members {
  using type = members_of<Derived, void>;
};
template <typename Derived>
struct model_members<Derived, true> {
  using type = members_of<Derived, std::remove_cvref_t<decltype(boost::hana::accessors<Derived>())>>;
};
template <typename Derived>
using members = typename model_members<Derived>::type;

// The links of a model's members, each feeding the next in the derived forward (ctattn::sequential's rule of links,
// with the model's operation and sentence).
template <typename... Members>
struct chain_rules {
  using type = chain_links<op::model, shape_error::model_member_output_must_match_next_input, Members...>;
};

/// The rules of a model: its members declared (a Hana struct with at least one member); then, for the derived
/// forward, each member feeding the next.
template <typename Derived>
using model_rules =
    rule_list<shape_error::model_members_must_be_declared<op::model, Derived, boost::hana::Struct<Derived>::value>,
              shape_error::model_must_have_members<op::model, Derived, count<members<Derived>::count>>>;

// The result of a model's derived forward on an X.
// Rationale: a struct of Derived and X, so that nothing is looked up in Derived before it is complete (an alias
// depending on Derived alone would be formed where ctattn::model<Derived> is, inside Derived's base clause).
template <typename Derived, typename X>
struct model_result {
  using type = typename members<Derived>::template apply<sequence_result_of<X>::template apply>;
};

// The member at index I of a model object (const or not).
template <std::size_t I, typename Self>
[[nodiscard]] constexpr auto& member_at(Self& self) noexcept {
  return boost::hana::second(boost::hana::at_c<I>(boost::hana::accessors<std::remove_const_t<Self>>()))(self);
}

// Whether M has a member named `forward` (a function, a template, an overload set): the name is ambiguous in a class
// deriving from M and from a class holding it. A layer (a projection has no forward of its own) or such a type is
// what a model's member is.
struct forward_name {
  int forward = 0;
};
template <typename M>
struct forward_name_probe : M, forward_name {};
template <typename M>
inline constexpr bool has_forward = [] {
  if constexpr (std::is_class_v<M> && !std::is_final_v<M>) {
    return !requires { &forward_name_probe<M>::forward; };
  } else {
    return false;
  }
}();

// Each member of a model is a layer (the derived forward runs it).
template <typename Derived, typename Indices = std::make_index_sequence<members<Derived>::count>>
struct member_layer_rules;
template <typename Derived, std::size_t... K>
struct member_layer_rules<Derived, std::index_sequence<K...>> {
  using type = rule_list<shape_error::model_member_must_be_a_layer<
      op::model, count<K>, std::remove_cvref_t<decltype(member_at<K>(std::declval<const Derived&>()))>,
      Layer<std::remove_cvref_t<decltype(member_at<K>(std::declval<const Derived&>()))>> ||
          has_forward<std::remove_cvref_t<decltype(member_at<K>(std::declval<const Derived&>()))>>>...>;
};

// A model attends to a memory when a member does.
template <typename... Members>
struct any_attends_to_memory : std::bool_constant<(attends_to_memory<Members> || ...)> {};
template <typename M>
  requires Model<M>
inline constexpr bool attends_to_memory<M> = members<M>::template apply<any_attends_to_memory>::value;

// The type of member I of a model.
template <std::size_t I, typename Derived>
using member_type_at = std::remove_cvref_t<decltype(member_at<I>(std::declval<const Derived&>()))>;

template <typename Derived>
using model_chain_rules = rule_list<model_rules<Derived>, typename member_layer_rules<Derived>::type,
                                    typename members<Derived>::template apply<chain_rules>::type>;

// A chain: a model (its members) or a sequential (its layers). Its length, element I, that element's type and name
// (the member's, or the index), which calibration (ctattn/quantized/ranges.hpp) and quantization
// (ctattn/quantized/model.hpp) walk alike.
template <typename L>
inline constexpr bool is_sequential = false;
template <typename... Layers>
inline constexpr bool is_sequential<sequential<Layers...>> = true;
template <typename L>
inline constexpr bool is_chain = Model<L> || is_sequential<L>;

template <std::size_t I, typename C>
[[nodiscard]] constexpr const auto& chain_element(const C& chain) noexcept {
  if constexpr (Model<C>) {
    return member_at<I>(chain);
  } else {
    return boost::hana::at_c<I>(chain.layers);
  }
}
template <std::size_t I, typename C>
using chain_element_type = std::remove_cvref_t<decltype(chain_element<I>(std::declval<const C&>()))>;
template <typename C>
[[nodiscard]] constexpr std::size_t chain_length() noexcept {
  if constexpr (Model<C>) {
    return members<C>::count;
  } else {
    return decltype(boost::hana::length(std::declval<const C&>().layers))::value;
  }
}
template <typename C>
[[nodiscard]] constexpr std::string_view chain_name(std::size_t i) noexcept {
  if constexpr (Model<C>) {
    return members<C>::names[i];
  } else {
    return index_name(i);
  }
}
}  // namespace detail

/// The base of a model declared once (see this header): `struct m : ctattn::model<m> { BOOST_HANA_DEFINE_STRUCT(m,
/// (type, name)...); };`. It holds nothing (`sizeof(m)` is its members').
///
/// | member                   | shape                                                                          |
/// |--------------------------|--------------------------------------------------------------------------------|
/// | `forward(x, options...)` | x: the first member's input (ids for an embedding, n x width otherwise); result: the last member's |
/// | `result_of<X>`           | that result's type                                                              |
/// | `footprint_of<X>()`      | `ctattn::footprint` of one forward on an X                                      |
///
/// Rules: the members are declared with `BOOST_HANA_DEFINE_STRUCT` and there is at least one
/// (`model_members_must_be_declared`, `model_must_have_members`); in the derived forward, each member's output
/// width is the next one's input width (`model_member_output_must_match_next_input`; members that keep the width,
/// activations, pass it on).
///
/// Example:
/// \code
///   struct classifier : ctattn::model<classifier> {
///     BOOST_HANA_DEFINE_STRUCT(classifier,
///         (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
///         (ctattn::relu, act),
///         (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
///   };
///   constexpr auto y = classifier{}.forward(ctattn::matrix<float, 3, 4>{});   // 3 x 2
///   static_assert(ctattn::parameter_name_at(classifier{}, 2).view() == "out.weight");
/// \endcode
template <typename Derived>
struct model {
  // Rationale: what `ctattn::Model` reads. Asking `std::is_base_of` would form `model<L>` for every layer type L that
  // `ctattn::forward` is called with: 7% of the int8 sorter proof's compile time.
  using ctattn_model_type = Derived;

  /// Runs the members in the order they are declared, each on the previous one's result, with the call's options
  /// given to every member.
  template <typename X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    constexpr bool memory_kept =
        (detail::is_memory_option<Options>::value || ...) || !detail::attends_to_memory<Derived>;
    if constexpr (!shape_error::decoder_needs_its_memory<op::model, memory_kept>::check()) {
      return x;
    } else if constexpr (detail::first_broken<detail::model_chain_rules<Derived>>::check()) {
      // Rationale: the first member's input rules checked here, not only inside the chain: a mistake in the input
      // is then reported from this frame, the user's line a few lines below the sentence on Clang too (not under
      // the chain's frames, 25 lines down).
      if constexpr (detail::first_broken<detail::chain_input_rules<detail::member_type_at<0, Derived>, X>>::check()) {
        const Derived& self = static_cast<const Derived&>(*this);
        return detail::run_chain<detail::members<Derived>::count - 1>(
            [&](auto i) -> const auto& { return detail::member_at<decltype(i)::value>(self); }, x, options...);
      } else {
        return x;
      }
    } else {
      return x;
    }
  }

  /// Not for calling: declared and never defined, it tells the forward derived here from one the model declares of
  /// its own, which hides it (`ctattn::DerivedForward`).
  detail::derived_forward_marker forward(detail::forward_probe) const noexcept;

  /// The result of `forward` on an X (known without running it: a decoder member's forward also needs a memory).
  template <typename X>
  using result_of = typename detail::model_result<Derived, X>::type;

  /// The footprint of one `forward` on an X (`ctattn::layer_footprint<Derived, X>`): the members' calls composed,
  /// each on the previous one's result.
  ///
  /// Rationale: a model with its own forward keeps this figure. Its members still run one after another on results
  /// of the same rows, so the composition of their calls (every result but the last held, the deepest member's
  /// stack on top) bounds it too, unless that forward holds more than one member's result at a time; such a model
  /// declares its own `footprint_of`.
  template <typename X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    if constexpr (detail::first_broken<detail::model_chain_rules<Derived>>::check()) {
      using chain = typename detail::members<Derived>::template apply<detail::sequence_footprint_of<X>::template apply>;
      return detail::held_in<Derived>(chain::of());
    } else {
      return footprint{};
    }
  }

  /// Every member under its name (`ctattn::for_each_parameter` walks them as PyTorch's state_dict lists them: the
  /// members holding the module's own nn.Parameter first, `ctattn::held_by_module`).
  template <detail::SameLayer<Derived> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    if constexpr (detail::first_broken<detail::model_rules<Derived>>::check()) {
      constexpr auto order = detail::members<Derived>::state_dict_order;
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return boost::hana::make_tuple(
            sublayer(detail::members<Derived>::names[order[I]], detail::member_at<order[I]>(self))...);
      }(std::make_index_sequence<detail::members<Derived>::count>{});
    } else {
      return boost::hana::make_tuple();
    }
  }

  /// Member by member.
  friend constexpr bool operator==(const Derived& a, const Derived& b) noexcept {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return ((detail::member_at<I>(a) == detail::member_at<I>(b)) && ...);
    }(std::make_index_sequence<detail::members<Derived>::count>{});
  }
};

/// Whether a model's forward is the one `ctattn::model` derives (its members run in turn), not one it declares of its
/// own (a residual around its members, a scale): `ctattn::quantize` and `ctattn::record_ranges` follow the members,
/// so they refuse a model whose forward is its own.
///
/// Example: `static_assert(ctattn::DerivedForward<toy::sorter>);`
template <typename M>
concept DerivedForward = Model<M> && requires {
  static_cast<detail::derived_forward_marker (model<std::remove_cvref_t<M>>::*)(detail::forward_probe) const noexcept>(
      &std::remove_cvref_t<M>::forward);
};

/// Runs a model: `model.forward(x, options...)`, as `ctattn::forward` runs a layer. It refuses a type whose base
/// names another model (`struct b : ctattn::model<a>`: `model_must_derive_from_model_of_itself`), which the member
/// call `b.forward(x)` cannot see: that call is a's, run over a b.
///
/// Example: `const auto logits = ctattn::forward(toy::sorter{}, ids);`
template <typename M, typename X, typename... Options>
  requires(Model<M> || detail::misdeclared_model<M>) && (!Layer<M>)
[[nodiscard]] constexpr auto forward(const M& m, const X& x, const Options&... options) noexcept {
  if constexpr (detail::model_base_rule<op::model, M>::check()) {
    return m.forward(x, options...);
  } else {
    return x;
  }
}

}  // namespace ctattn

#endif  // CTATTN_LAYERS_MODEL_HPP
