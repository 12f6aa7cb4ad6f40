// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_EMBEDDING_HPP
#define CTATTN_LAYERS_EMBEDDING_HPP

/// \file
/// Embeddings as layers (nn.Embedding): `token_embedding` turns token ids into rows of its table, and
/// `position_embedding` adds the learned row of each position (nn.Embedding(max_len, d) applied to arange(n)).

#include <array>
#include <concepts>
#include <cstddef>
#include <utility>

#include <boost/hana/tuple.hpp>

#include "ctattn/layers/layer.hpp"
#include "ctattn/position/embedding.hpp"

namespace ctattn {

/// nn.Embedding(Vocabulary, D) on token ids: row r of the result is row ids[r] of `weight`.
///
/// | operand / member | shape                                   |
/// |------------------|-----------------------------------------|
/// | `ids`            | `std::array<I, n>`, each id < Vocabulary |
/// | result           | n x D                                   |
/// | `weight`         | Vocabulary x D (`state_dict` name `weight`) |
///
/// An id outside the table is a compile error in constant evaluation and a trap at run time with
/// CTATTN_CHECK_PRECONDITIONS (ctattn::embed_tokens). It is the first layer of a model, so it is not a width-checked
/// layer of `ctattn::sequential`: a model calls it, then the sequence (see examples/verified_model/sorter.hpp).
///
/// Example:
/// \code
///   ctattn::token_embedding<float, 10, 32> embed{};
///   auto x = embed.forward(std::array<int, 6>{3, 1, 4, 1, 5, 9});   // 6 x 32
/// \endcode
template <typename T, std::size_t Vocabulary, auto D>
struct token_embedding {
  using value_type = T;
  static constexpr std::size_t vocabulary = Vocabulary;
  static constexpr auto output_extent = normalize_extent<D>;

  basic_matrix<T, Vocabulary, output_extent> weight{};

  template <std::integral I, std::size_t N>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids) const noexcept {
    return embed_tokens(weight, ids);
  }

  /// The footprint of one forward on N ids (`ctattn::layer_footprint<token_embedding, std::array<I, N>>`).
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = decltype(std::declval<const token_embedding&>().forward(std::declval<const Ids&>()));
    return detail::call_footprint<token_embedding, Ids, result>(0);
  }

  template <detail::SameLayer<token_embedding> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(parameter("weight", self.weight));
  }
  friend constexpr bool operator==(const token_embedding&, const token_embedding&) = default;
};

/// Learned positions as a layer: x + the first n rows of `weight`, as nn.Embedding(MaxLength, D) applied to
/// torch.arange(n) and added.
///
/// | operand / member | shape                                       |
/// |------------------|---------------------------------------------|
/// | input, result    | n x D, n <= MaxLength (a compile error otherwise) |
/// | `weight`         | MaxLength x D (`state_dict` name `weight`)  |
///
/// Example:
/// \code
///   ctattn::position_embedding<float, 16, 32> positions{};
///   auto y = ctattn::forward(positions, x);   // x: 6 x 32
/// \endcode
template <typename T, std::size_t MaxLength, auto D>
struct position_embedding {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<D>;
  static constexpr auto output_extent = normalize_extent<D>;

  basic_matrix<T, MaxLength, input_extent> weight{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    return add_position_embeddings(x, weight);
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): nothing on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<position_embedding, X, detail::layer_result<position_embedding, X>>(0);
  }

  template <detail::SameLayer<position_embedding> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(parameter("weight", self.weight));
  }
  friend constexpr bool operator==(const position_embedding&, const position_embedding&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_EMBEDDING_HPP
