// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_LINKS_HPP
#define CTATTN_QUANTIZED_LINKS_HPP

/// \file
/// The int8 form of a model as a chain of links, for proofs one link at a time: int8 link J is layer J of
/// `ctattn::quantize<Ranges>(model)`, made by `quantize_link` from the float link (or links) it comes from, so that a
/// translation unit holding one float link's weights and the ranges can build that int8 layer and check it on the
/// exact int8 input it gets (ctattn/host/proof.hpp writes such a chain). Every float link is one int8 link, except a
/// token embedding with the position embedding right after it: `quantize` makes the two one `qembedding`, one int8
/// link of span 2.
///
/// | entity                                    | what                                                            |
/// |-------------------------------------------|-----------------------------------------------------------------|
/// | `int8_link_count<M>`                      | the number of int8 links: `link_count<M>` less the token pairs  |
/// | `int8_link_first<J, M>`                   | the float link int8 link J starts at                             |
/// | `int8_link_span<J, M>`                    | how many float links it takes (1, or 2 for a token pair)         |
/// | `quantize_link<J, Ranges, M>(links...)`   | int8 link J from its float links: equal to `quantize<Ranges>(model).layer<J>()` |
/// | `int8_link_input<Ranges, M>(x)`           | the int8 chain's input: a float matrix quantized as `quantize`'s first layer takes it, ids as they are |
/// | `int8_link_result<J, Ranges, M, X>`       | the type int8 link J gives when the int8 model runs on (the int8 form of) an X |
///
/// Example (the int8 form of a classifier, link by link):
/// \code
///   struct classifier : ctattn::model<classifier> {
///     BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
///                              (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
///   };
///   inline constexpr ctattn::named_range ranges[] = {
///       {"input", {-1.0, 1.0}}, {"hidden", {-2.0, 3.0}}, {"act", {0.0, 3.0}}, {"out", {-4.0, 4.0}}};
///   constexpr classifier weights{};
///   constexpr auto x_q = ctattn::int8_link_input<ranges, classifier>(ctattn::matrix<float, 3, 4>{});
///   constexpr auto h_q = ctattn::run_link(ctattn::quantize_link<0, ranges, classifier>(ctattn::link<0>(weights)), x_q);
///   static_assert(ctattn::quantize_link<1, ranges, classifier>(ctattn::link<1>(weights)) ==
///                 ctattn::quantize<ranges>(weights).layer<1>());
/// \endcode

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ctattn/layers/links.hpp"
#include "ctattn/quantized/model.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

namespace detail {
// Whether two links' paths are siblings: the same chain, elements I and I + 1.
template <std::size_t... P, std::size_t... Q>
[[nodiscard]] constexpr bool sibling_paths(index_path<P...>, index_path<Q...>) noexcept {
  if constexpr (sizeof...(P) != sizeof...(Q) || sizeof...(P) == 0) {
    return false;
  } else {
    constexpr std::size_t a[] = {P...};
    constexpr std::size_t b[] = {Q...};
    for (std::size_t i = 0; i + 1 < sizeof...(P); ++i) {
      if (a[i] != b[i]) return false;
    }
    return a[sizeof...(P) - 1] + 1 == b[sizeof...(P) - 1];
  }
}

template <typename M, std::size_t K>
using link_path = typename path_at<K, links_of<M>>::type;

// Whether float links K and K + 1 are a token embedding and the position embedding right after it in one chain,
// which `quantize` makes one qembedding.
template <typename M, std::size_t K>
[[nodiscard]] constexpr bool token_pair_link() noexcept {
  if constexpr (K + 1 >= link_count<M>) {
    return false;
  } else {
    return is_token_embedding<link_type<K, M>> && is_position_embedding<link_type<K + 1, M>> &&
           sibling_paths(link_path<M, K>{}, link_path<M, K + 1>{});
  }
}

// Where each int8 link starts among the float links, and how many there are.
template <std::size_t N>
struct int8_link_plan {
  std::array<std::size_t, N + 1> first{};  // first[count] = N
  std::size_t count = 0;
};
template <typename M, std::size_t... K>
[[nodiscard]] constexpr auto make_int8_link_plan(std::index_sequence<K...>) noexcept {
  constexpr bool pair[] = {token_pair_link<M, K>()..., false};
  int8_link_plan<sizeof...(K)> plan{};
  for (std::size_t k = 0; k < sizeof...(K); k += pair[k] ? 2 : 1) plan.first[plan.count++] = k;
  plan.first[plan.count] = sizeof...(K);
  return plan;
}
template <typename M>
inline constexpr auto int8_links_of = make_int8_link_plan<M>(std::make_index_sequence<link_count<M>>{});

// The float links int8 link J is made of, as types.
template <typename... Links>
struct link_types {};
template <std::size_t J, typename M, std::size_t... I>
auto float_links_of_int8_link(std::index_sequence<I...>) -> link_types<link_type<int8_links_of<M>.first[J] + I, M>...>;

// The quantization int8 link J's input is in: the output of int8 link J - 1, or the model's input.
template <std::size_t J, const auto& Ranges, typename M>
[[nodiscard]] constexpr quantization int8_link_input_quantization() noexcept {
  if constexpr (J == 0) {
    if constexpr (is_token_embedding<link_type<0, M>>) {
      return quantization{1.0};
    } else {
      return quantization_at<Ranges, point_name(parameter_name{}, points::input)>;
    }
  } else {
    using previous =
        std::remove_cvref_t<decltype(std::declval<const quantized_model<M, Ranges>&>().template layer<J - 1>())>;
    return previous::output_quantization;
  }
}

// Whether a qchain holds a 16x8 layer (whose links `quantize_link` does not make).
template <typename Chain>
inline constexpr bool holds_16x8_layers = false;
template <typename... Layers>
inline constexpr bool holds_16x8_layers<qchain<Layers...>> =
    ((output_format_of<Layers> == activation_format::int16) || ...);

// The type int8 links 0 to J give, one after another, on an int8 input X.
template <std::size_t J, typename Chain, typename X>
struct int8_prefix_result {
  using type = typename layer_result_of<std::remove_cvref_t<decltype(std::declval<const Chain&>().template layer<J>())>,
                                        typename int8_prefix_result<J - 1, Chain, X>::type>::type;
};
template <typename Chain, typename X>
struct int8_prefix_result<0, Chain, X> {
  using type = typename layer_result_of<std::remove_cvref_t<decltype(std::declval<const Chain&>().template layer<0>())>,
                                        X>::type;
};
}  // namespace detail

/// The number of int8 links of a model (see this header): `link_count<M>`, less one per token embedding followed
/// by its position embedding.
template <typename M>
inline constexpr std::size_t int8_link_count = detail::int8_links_of<M>.count;

/// The float link int8 link J starts at.
template <std::size_t J, typename M>
inline constexpr std::size_t int8_link_first = detail::int8_links_of<M>.first[J];

/// How many float links int8 link J is made of: 2 for a token embedding and its positions, else 1.
template <std::size_t J, typename M>
inline constexpr std::size_t int8_link_span = detail::int8_links_of<M>.first[J + 1] - detail::int8_links_of<M>.first[J];

/// Int8 link J of model type M, made from the float links it comes from (`ctattn::link<K>(model)` for K from
/// `int8_link_first<J, M>`, `int8_link_span<J, M>` of them), every quantization read from `Ranges` by the links'
/// paths: the layer `ctattn::quantize<Ranges>(model).layer<J>()` is, bit for bit.
///
/// | operand  | what                                                                          |
/// |----------|-------------------------------------------------------------------------------|
/// | `J`      | the int8 link, below `int8_link_count<M>`                                     |
/// | `Ranges` | the model's recorded ranges, as `ctattn::quantize` takes them                 |
/// | `links`  | the float links, in order                                                     |
/// | result   | the int8 layer (`qtransformer_encoder_layer`, `qlinear`, `qembedding`, ...)   |
///
/// Example: `constexpr auto layer_3 = ctattn::quantize_link<3, kwt_ranges, kwt>(kwt_link_3);`
template <std::size_t J, const auto& Ranges, typename M, typename... Links>
[[nodiscard]] constexpr auto quantize_link(const Links&... links) noexcept {
  static_assert(J < int8_link_count<M>, "ctattn: a model has int8_link_count<M> int8 links, numbered from 0");
  static_assert(!detail::holds_16x8_layers<quantized_model<M, Ranges>>,
                "ctattn: a model's links are int8 links; a model with 16x8 layers (quantize_options::activations "
                "int16) is quantized whole, by ctattn::quantize");
  using expected = decltype(detail::float_links_of_int8_link<J, M>(std::make_index_sequence<int8_link_span<J, M>>{}));
  constexpr std::size_t first = int8_link_first<J, M>;
  using result = std::remove_cvref_t<decltype(std::declval<const quantized_model<M, Ranges>&>().template layer<J>())>;
  if constexpr (!shape_error::int8_link_needs_its_float_links<op::quantize_link, expected,
                                                              detail::link_types<Links...>>::check()) {
    return result{};
  } else if constexpr (sizeof...(Links) == 2) {
    const auto& [token, positions] = std::tie(links...);
    constexpr parameter_name token_path = link_name<first, M>;
    constexpr parameter_name positions_path = link_name<first + 1, M>;
    using token_type = std::remove_cvref_t<decltype(token)>;
    using positions_type = std::remove_cvref_t<decltype(positions)>;
    constexpr detail::position_embedding_points q =
        detail::points_of<Ranges, positions_path, quantization{1.0}, positions_type>;
    return quantize_embedding<detail::points_of<Ranges, token_path, quantization{1.0}, token_type>.weight, q.weight,
                              q.output>(token, positions);
  } else {
    constexpr quantization input = detail::int8_link_input_quantization<J, Ranges, M>();
    return detail::quantize_layer<Ranges, link_name<first, M>, input>(links...);
  }
}

/// The int8 chain's input from the float model's: a matrix quantized with the int8 model's input quantization
/// (Q(`input`)), token ids as they are.
///
/// Example: `static_assert(ctattn::run_link(int8_link_0, ctattn::int8_link_input<kwt_ranges, kwt>(frames)) == ...);`
template <const auto& Ranges, typename M, typename X>
[[nodiscard]] constexpr auto int8_link_input(const X& x) noexcept {
  return detail::int8_input<quantized_model<M, Ranges>>(x);
}

/// The type int8 link J gives when the int8 form of model M runs on (the int8 form of) an X.
template <std::size_t J, const auto& Ranges, typename M, typename X>
using int8_link_result = typename detail::int8_prefix_result<
    J, quantized_model<M, Ranges>,
    std::remove_cvref_t<decltype(int8_link_input<Ranges, M>(std::declval<const X&>()))>>::type;

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LINKS_HPP
