// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_LINKS_HPP
#define CTATTN_LAYERS_LINKS_HPP

/// \file
/// A model as a chain of links, for proofs one link at a time: its members in the order the derived forward runs
/// them, a member that is itself a chain (a nested model, a `ctattn::sequential`) spliced in, so that a stack of
/// twelve encoder layers is twelve links. Running the links in turn is the model's derived forward, call for call;
/// a proof that checks each link on the exact input it gets, in a translation unit of its own, proves the whole
/// forward (ctattn/host/proof.hpp writes such a chain).
///
/// | entity                          | what                                                                 |
/// |---------------------------------|----------------------------------------------------------------------|
/// | `link_count<M>`                 | the number of links                                                  |
/// | `link<K>(model)`                | link K of a model object (a reference into it)                       |
/// | `link_type<K, M>`               | its type                                                             |
/// | `link_name<K, M>`               | its path, as its parameters are named (`layers.3`, `head`)           |
/// | `run_link(link, x)`             | one link on x: `ctattn::forward` on a matrix, the link's own `forward` on ids |
/// | `run_links<First, Last>(m, x)`  | links First to Last - 1 run in turn on x                             |
/// | `link_result<K, M, X>`          | the type link K gives when the model runs on an X                    |
///
/// Example:
/// \code
///   struct classifier : ctattn::model<classifier> {
///     BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::sequential<ctattn::linear<float, 4, 4>, ctattn::relu>, body),
///                              (ctattn::linear<float, 4, 2>, head));
///   };
///   static_assert(ctattn::link_count<classifier> == 3 && ctattn::link_name<1, classifier>.view() == "body.1");
///   constexpr auto x = ctattn::matrix<float, 2, 4>{};
///   static_assert(ctattn::run_links<0, 3>(classifier{}, x) == classifier{}.forward(x));
/// \endcode

#include <cstddef>
#include <type_traits>
#include <utility>

#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/model.hpp"
#include "ctattn/layers/parameters.hpp"
#include "ctattn/layers/sequential.hpp"

namespace ctattn {

namespace detail {
// The indices that reach one link from the top chain down.
template <std::size_t... I>
struct index_path {};
template <typename... Paths>
struct path_list {};
template <typename A, typename B>
struct path_concat;
template <typename... A, typename... B>
struct path_concat<path_list<A...>, path_list<B...>> {
  using type = path_list<A..., B...>;
};

template <typename C, typename Prefix, std::size_t I, bool End = (I >= chain_length<C>())>
struct leaf_paths {
  using type = path_list<>;
};
// Element I of C: its own leaves when it is a chain, else itself.
template <typename E, typename Path, bool Chain = is_chain<E>>
struct element_leaves {
  using type = path_list<Path>;
};
template <typename E, std::size_t... P>
struct element_leaves<E, index_path<P...>, true> {
  using type = typename leaf_paths<E, index_path<P...>, 0>::type;
};
template <typename C, std::size_t... P, std::size_t I>
struct leaf_paths<C, index_path<P...>, I, false> {
  using type = typename path_concat<typename element_leaves<chain_element_type<I, C>, index_path<P..., I>>::type,
                                    typename leaf_paths<C, index_path<P...>, I + 1>::type>::type;
};

template <typename M>
using links_of = typename leaf_paths<M, index_path<>, 0>::type;

template <std::size_t K, typename List>
struct path_at;
template <std::size_t K, typename First, typename... Rest>
struct path_at<K, path_list<First, Rest...>> : path_at<K - 1, path_list<Rest...>> {};
template <typename First, typename... Rest>
struct path_at<0, path_list<First, Rest...>> {
  using type = First;
};

template <typename List>
struct path_count;
template <typename... Paths>
struct path_count<path_list<Paths...>> {
  static constexpr std::size_t value = sizeof...(Paths);
};

// The element a path reaches, from a chain object.
template <typename C, std::size_t First, std::size_t... Rest>
[[nodiscard]] constexpr const auto& element_on_path(const C& chain, index_path<First, Rest...>) noexcept {
  if constexpr (sizeof...(Rest) == 0) {
    return chain_element<First>(chain);
  } else {
    return element_on_path(chain_element<First>(chain), index_path<Rest...>{});
  }
}

// A path's name: each chain's name of its element (a member's name, an index), joined by dots.
template <typename C, std::size_t First, std::size_t... Rest>
[[nodiscard]] constexpr parameter_name path_name(const parameter_name& prefix, index_path<First, Rest...>) noexcept {
  const parameter_name here = joined(prefix, chain_name<C>(First));
  if constexpr (sizeof...(Rest) == 0) {
    return here;
  } else {
    return path_name<chain_element_type<First, C>>(here, index_path<Rest...>{});
  }
}
}  // namespace detail

/// The number of links of a model or a `ctattn::sequential` (see this header).
template <typename M>
inline constexpr std::size_t link_count = detail::path_count<detail::links_of<M>>::value;

/// Link K of `model`: the layer its derived forward runs K-th, nested chains spliced in.
///
/// Example: `const auto& third = ctattn::link<2>(model);   // model.layers's layer 1, say`
template <std::size_t K, typename M>
[[nodiscard]] constexpr const auto& link(const M& model) noexcept {
  static_assert(K < link_count<M>, "ctattn: a model has link_count<M> links, numbered from 0");
  return detail::element_on_path(model, typename detail::path_at<K, detail::links_of<M>>::type{});
}

/// The type of link K of a model of type M.
template <std::size_t K, typename M>
using link_type = std::remove_cvref_t<decltype(link<K>(std::declval<const M&>()))>;

/// Link K's path (`layers.3`, `head`): the prefix of its parameters' names.
template <std::size_t K, typename M>
inline constexpr parameter_name link_name =
    detail::path_name<M>(parameter_name{}, typename detail::path_at<K, detail::links_of<M>>::type{});

/// One link on x, as the derived forward runs it: `ctattn::forward(link, x, options...)` for a layer on a matrix,
/// the link's own `forward` otherwise (an embedding on token ids).
///
/// Example: `static_assert(ctattn::run_link(ctattn::link<3>(weights), after_2) == after_3);`
template <typename L, typename X, typename... Options>
[[nodiscard]] constexpr auto run_link(const L& layer, const X& x, const Options&... options) noexcept {
  return detail::run_layer(layer, x, options...);
}

/// Links First to Last - 1 of `model` run in turn on x, each on the one before's result, with the call's options
/// (as the derived forward passes them on); x itself when First == Last.
///
/// Example: `const auto h = ctattn::run_links<0, 4>(model, x);   // what link 4 takes`
template <std::size_t First, std::size_t Last, typename M, typename X, typename... Options>
[[nodiscard]] constexpr auto run_links(const M& model, const X& x, const Options&... options) noexcept {
  static_assert(First <= Last && Last <= link_count<M>,
                "ctattn: run_links<First, Last> needs First <= Last <= the "
                "model's link_count");
  if constexpr (First == Last) {
    return x;
  } else {
    return run_links<First + 1, Last>(model, detail::run_layer(link<First>(model), x, options...), options...);
  }
}

/// The type link K gives when the model runs on an X.
template <std::size_t K, typename M, typename X>
using link_result =
    std::remove_cvref_t<decltype(run_links<0, K + 1>(std::declval<const M&>(), std::declval<const X&>()))>;

}  // namespace ctattn

#endif  // CTATTN_LAYERS_LINKS_HPP
