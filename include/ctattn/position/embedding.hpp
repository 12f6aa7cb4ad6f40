// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_POSITION_EMBEDDING_HPP
#define CTATTN_POSITION_EMBEDDING_HPP

/// \file
/// Learned lookups: token embeddings (a row of a vocabulary table per token id) and learned position
/// embeddings (a row of a position table added to each token).

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>

#include "ctattn/detail/config.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/position/rules.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

namespace detail {

// Whether every id in Ids lies in [0, Vocabulary), and the first one that does not (as std::size_t).
struct id_check {
  bool all_inside;
  std::size_t first_outside;
};

template <auto Ids, std::size_t Vocabulary>
constexpr id_check check_ids() noexcept {
  for (const auto id : Ids) {
    if constexpr (std::is_signed_v<std::remove_cv_t<decltype(id)>>) {
      if (id < 0) return {false, static_cast<std::size_t>(id)};
    }
    if (static_cast<std::size_t>(id) >= Vocabulary) return {false, static_cast<std::size_t>(id)};
  }
  return {true, 0};
}

template <auto Rows, typename T, auto Vocabulary, auto D, typename Id>
constexpr basic_matrix<T, Rows, D> gather_rows(const basic_matrix<T, Vocabulary, D>& table, const Id* ids) noexcept {
  using table_type = basic_matrix<T, Vocabulary, D>;
  basic_matrix<T, Rows, D> result{};
  for (std::size_t r = 0; r < extent_size(Rows); ++r) {
    const auto id = ids[r];
    if constexpr (std::is_signed_v<Id>) detail::expects(id >= 0);
    const auto row = static_cast<std::size_t>(id);
    detail::expects(row < table_type::rows);
    for (std::size_t j = 0; j < table_type::cols; ++j) result.elements[r][j] = table.elements[row][j];
  }
  return result;
}

// The rows of N embedded tokens: `Rows` when given, else N (1 stands in for 0, which its rule reports).
template <auto Rows, std::size_t N>
inline constexpr auto embedded_rows = extent_or<Rows, (N == 0 ? 1 : N)>;

// N ids (known at run time or not): the count and the rows' extent checked, then one table row per id.
template <auto Rows, std::size_t N, typename T, auto Vocabulary, auto D, typename Id>
constexpr auto embed_ids(const basic_matrix<T, Vocabulary, D>& table, const Id* ids) noexcept {
  constexpr auto rows = embedded_rows<Rows, N>;
  using rules = rule_list<
      shape_error::count_must_be_positive<op::token_embedding, count<N>>,
      shape_error::relabelled_dimension_must_keep_its_size<op::token_embedding, dim<unnamed, N>, dim_of<rows>>>;
  basic_matrix<T, rows, D> result{};
  if constexpr (first_broken<rules>::check()) result = gather_rows<rows>(table, ids);
  return result;
}

}  // namespace detail

/// Token embedding with ids known at run time: row r of the result is row `ids[r]` of the table.
///
/// | operand  | shape                                            |
/// |----------|--------------------------------------------------|
/// | `table`  | Vocabulary x D (one learned row per token id)    |
/// | `ids`    | `std::array<I, N>` or `const I (&)[N]`, I an integer type |
/// | result   | N x D, or Rows x D (`embed_tokens<seq{6}>(...)`: the rows named, N entries) |
///
/// Precondition: 0 <= ids[r] < Vocabulary for every r (a compile error in constant evaluation; a trap at run
/// time when CTATTN_CHECK_PRECONDITIONS is on). The rows are copied exactly, as torch.nn.Embedding does. D keeps
/// the table's name; `Rows` names the sequence axis (its size must be N).
///
/// Example:
/// \code
///   // "Life is short, eat dessert first": ids of the words in the sorted vocabulary
///   const std::array<std::size_t, 6> ids{0, 4, 5, 2, 1, 3};
///   const auto x = ctattn::embed_tokens<seq{6}>(embedding_table, ids);   // seq x d_model from a vocab x d_model table
/// \endcode
template <auto Rows = std::size_t{0}, typename T, auto Vocabulary, auto D, std::integral I, std::size_t N>
[[nodiscard]] constexpr auto embed_tokens(const basic_matrix<T, Vocabulary, D>& table,
                                          const std::array<I, N>& ids) noexcept {
  return detail::embed_ids<Rows, N>(table, ids.data());
}

/// \copydoc embed_tokens(const basic_matrix<T, Vocabulary, D>&, const std::array<I, N>&)
template <auto Rows = std::size_t{0}, typename T, auto Vocabulary, auto D, std::integral I, std::size_t N>
[[nodiscard]] constexpr auto embed_tokens(const basic_matrix<T, Vocabulary, D>& table, const I (&ids)[N]) noexcept {
  return detail::embed_ids<Rows, N>(table, ids);
}

/// Token embedding with ids known at compile time (a `std::array` template argument): an id outside the
/// vocabulary is a compile error that names it and the vocabulary,
/// `shape_error::index_must_be_inside_dimension<op::token_embedding, count<id>, dim<..., Vocabulary>>`.
///
/// | operand  | shape                                               |
/// |----------|-----------------------------------------------------|
/// | `Ids`    | `std::array<I, N>` template argument, I an integer type |
/// | `table`  | Vocabulary x D                                      |
/// | `Rows`   | optional: names the rows (`seq{6}`; its size must be N) |
/// | result   | N x D, or Rows x D                                  |
///
/// Rule: every id is in [0, Vocabulary). (A negative id is reported as its value converted to std::size_t.)
///
/// Example:
/// \code
///   constexpr std::array<std::size_t, 6> sentence{0, 4, 5, 2, 1, 3};
///   constexpr auto x = ctattn::embed_tokens<sentence>(embedding_table);            // 6 x d_model
///   constexpr auto named = ctattn::embed_tokens<sentence, seq{6}>(embedding_table);  // seq x d_model
/// \endcode
template <auto Ids, auto Rows = std::size_t{0}, typename T, auto Vocabulary, auto D>
  requires requires { std::tuple_size<std::remove_cv_t<decltype(Ids)>>::value; }
[[nodiscard]] constexpr auto embed_tokens(const basic_matrix<T, Vocabulary, D>& table) noexcept {
  using ids_type = std::remove_cv_t<decltype(Ids)>;
  using id_type = typename ids_type::value_type;
  constexpr std::size_t n = std::tuple_size<ids_type>::value;
  constexpr std::size_t vocabulary = basic_matrix<T, Vocabulary, D>::rows;
  constexpr detail::id_check ids_checked = detail::check_ids<Ids, vocabulary>();
  using rules =
      rule_list<shape_error::token_ids_must_be_integers<op::token_embedding, id_type>,
                shape_error::index_must_be_inside_dimension<op::token_embedding, count<ids_checked.first_outside>,
                                                            dim_of<Vocabulary>>>;
  if constexpr (detail::first_broken<rules>::check()) {
    return detail::embed_ids<Rows, n>(table, Ids.data());
  } else {
    return basic_matrix<T, detail::embedded_rows<Rows, n>, D>{};
  }
}

/// Learned (absolute) position embeddings: adds row `first_position + r` of the position table to row r of x.
///
/// | operand          | shape                                             |
/// |------------------|---------------------------------------------------|
/// | `x`              | N x D (embedded tokens)                           |
/// | `table`          | MaxLength x D' (one learned row per position)     |
/// | `first_position` | position of row 0 (default 0)                     |
/// | result           | N x D (the named extent wins where one side names it) |
///
/// Rules (compile time): D matches D' (`columns_must_match<op::position_embedding, ...>`), N <= MaxLength
/// (`sequence_must_fit_position_table<op::position_embedding, N, MaxLength>`), same element type.
/// Precondition (run time): first_position + N <= MaxLength.
///
/// Example:
/// \code
///   // GPT-2 style: x = token_embedding + position_embedding[0 .. n-1]
///   const auto x = ctattn::add_position_embeddings(ctattn::embed_tokens(wte, ids), wpe);   // wpe: 1024 x 768
/// \endcode
template <FixedMatrix X, FixedMatrix Table>
[[nodiscard]] constexpr auto add_position_embeddings(const X& x, const Table& table,
                                                     std::size_t first_position = 0) noexcept {
  using rules = rule_list<detail::same_element_rule<op::position_embedding, X, Table>,
                          detail::columns_rule<op::position_embedding, X, Table>,
                          shape_error::sequence_must_fit_position_table<op::position_embedding, dim_of<X::row_extent>,
                                                                        dim_of<Table::row_extent>>>;
  using T = typename X::value_type;
  basic_matrix<T, X::row_extent, unify_extents(X::column_extent, Table::column_extent)> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    detail::expects(first_position <= Table::rows - X::rows);
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t j = 0; j < X::cols; ++j) {
        result.elements[r][j] = x.elements[r][j] + table.elements[first_position + r][j];
      }
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_POSITION_EMBEDDING_HPP
