// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_EMBEDDING_HPP
#define CTATTN_LAYERS_EMBEDDING_HPP

/// \file
/// Embeddings as layers: `token_embedding` turns token ids into rows of its table (nn.Embedding);
/// `position_embedding` adds the learned row of each position, held as nn.Embedding(max_len, d) applied to
/// arange(n) or, as `position_parameter`, as an nn.Parameter of shape [1, max_len, d] (KWT's `pos_embedding`, timm's
/// `pos_embed`); `class_token` puts a learned row before the tokens (an nn.Parameter [1, 1, d], `cls_token`).

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>
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

/// How a layer's learned table is held in PyTorch: as the `weight` of an nn.Embedding submodule (`state_dict` name
/// `<member>.weight`, shape [rows, d]), or as an nn.Parameter of the module itself (`state_dict` name `<member>`,
/// shape [1, rows, d]).
struct embedding_weight {};
/// \copydoc embedding_weight
struct module_parameter {};

/// Learned positions as a layer: x + the first n rows of `weight`, as nn.Embedding(MaxLength, D) applied to
/// torch.arange(n) and added, or (with `Held` = `ctattn::module_parameter`, the alias `position_parameter`) as
/// `x + self.pos_embedding[:, :n]` over an nn.Parameter of shape [1, MaxLength, D].
///
/// | operand / member | shape                                       |
/// |------------------|---------------------------------------------|
/// | input, result    | n x D, n <= MaxLength (a compile error otherwise) |
/// | `weight`         | MaxLength x D: `weight` [MaxLength, D], or the member's name [1, MaxLength, D] |
///
/// Example:
/// \code
///   ctattn::position_embedding<float, 16, 32> positions{};
///   auto y = ctattn::forward(positions, x);   // x: 6 x 32
/// \endcode
template <typename T, std::size_t MaxLength, auto D, typename Held = embedding_weight>
struct position_embedding {
  using value_type = T;
  static constexpr bool held_by_module = std::is_same_v<Held, module_parameter>;
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
    if constexpr (std::is_same_v<Held, module_parameter>) {
      return boost::hana::make_tuple(reshaped_parameter<1, MaxLength, extent_size(input_extent)>("", self.weight));
    } else {
      return boost::hana::make_tuple(parameter("weight", self.weight));
    }
  }
  friend constexpr bool operator==(const position_embedding&, const position_embedding&) = default;
};

/// Learned positions held as an nn.Parameter of shape [1, MaxLength, D] (KWT's `pos_embedding`, timm's
/// `pos_embed`): `x + self.pos_embedding[:, :n]`. The member's name is the parameter's `state_dict` name.
///
/// Example:
/// \code
///   ctattn::position_parameter<float, 99, 64> pos_embedding{};
///   static_assert(ctattn::parameter_count(pos_embedding) == 99 * 64);
/// \endcode
template <typename T, std::size_t MaxLength, auto D>
using position_parameter = position_embedding<T, MaxLength, D, module_parameter>;

/// A learned class token put before the tokens: `torch.cat([self.cls_token, x], dim=1)` with an nn.Parameter
/// `cls_token` of shape [1, 1, D] (ViT, KWT). Its output's first row is the token, which a classifier reads after
/// the encoder (`ctattn::class_token_pool`).
///
/// | operand / member | shape                                                        |
/// |------------------|--------------------------------------------------------------|
/// | input            | n x D                                                        |
/// | result           | (n + 1) x D: the token, then the input's rows                |
/// | `token`          | 1 x D (`state_dict`: the member's own name, shape [1, 1, D]) |
///
/// Example:
/// \code
///   ctattn::class_token<float, 64> cls_token{};
///   auto y = ctattn::forward(cls_token, ctattn::matrix<float, 98, 64>{});   // 99 x 64
/// \endcode
template <typename T, auto D>
struct class_token {
  using value_type = T;
  static constexpr bool held_by_module = true;
  static constexpr auto input_extent = normalize_extent<D>;
  static constexpr auto output_extent = normalize_extent<D>;

  basic_matrix<T, std::size_t{1}, input_extent> token{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    basic_matrix<T, X::rows + 1, output_extent> y{};
    if constexpr (detail::first_broken<detail::layer_input_rules<class_token, X>>::check()) {
      for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] = token.elements[0][j];
      for (std::size_t r = 0; r < X::rows; ++r) {
        for (std::size_t j = 0; j < X::cols; ++j) y.elements[r + 1][j] = x.elements[r][j];
      }
    }
    return y;
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): nothing on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<class_token, X, detail::layer_result<class_token, X>>(0);
  }

  /// The nn.Parameter, under the member's own name: [1, 1, D].
  template <detail::SameLayer<class_token> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(reshaped_parameter<1, 1, extent_size(input_extent)>("", self.token));
  }
  friend constexpr bool operator==(const class_token&, const class_token&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_EMBEDDING_HPP
