// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_BLOCKS_HPP
#define CTATTN_MATRIX_BLOCKS_HPP

#include <array>
#include <cstddef>
#include <type_traits>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// Columns `[Start, Start + Width)` as a matrix of their own.
///
/// | operand | shape       |
/// |---------|-------------|
/// | `a`     | M x N       |
/// | result  | M x Width   |
///
/// Rule: Start + Width <= N. `Width` may be named (`d_head{8}`) to name the block's columns.
///
/// Example:
/// \code
///   constexpr auto head_1 = ctattn::column_block<8, 8>(queries);   // columns 8..15
/// \endcode
template <std::size_t Start, auto Width, typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, normalize_extent<Width>> column_block(
    const basic_matrix<T, M, N>& a) noexcept {
  constexpr std::size_t end = Start + extent_size(normalize_extent<Width>);
  basic_matrix<T, M, normalize_extent<Width>> result{};
  if constexpr (shape_error::block_must_fit_dimension<op::column_block, count<end>, dim_of<N>>::check()) {
    for (std::size_t i = 0; i < extent_size(M); ++i) {
      for (std::size_t j = 0; j < extent_size(Width); ++j) result.elements[i][j] = a.elements[i][Start + j];
    }
  }
  return result;
}

/// Splits the columns into `Parts` equal blocks: the head split of multi-head attention.
///
/// | operand | shape                                      |
/// |---------|--------------------------------------------|
/// | `a`     | M x N                                      |
/// | result  | `std::array` of Parts matrices M x (N / Parts) |
///
/// Rule: Parts divides N. The blocks' columns keep a name: when N is named (`d_model{16}`), they are
/// `ctattn::part_of<d_model, Parts>` ("d_model/4"), which `concat_columns` turns back into `d_model`; `Block`
/// names them otherwise (e.g. `d_head{4}`), its size times Parts then equal to N.
///
/// Example:
/// \code
///   auto heads = ctattn::split_columns<4>(queries);             // 4 blocks of seq x part_of<d_model, 4>{4}
///   auto named = ctattn::split_columns<4, d_head{4}>(queries);  // the same, columns named d_head
/// \endcode
template <std::size_t Parts, auto Block = std::size_t{0}, typename T, auto M, auto N>
[[nodiscard]] constexpr auto split_columns(const basic_matrix<T, M, N>& a) noexcept {
  constexpr std::size_t width = extent_size(N) / (Parts == 0 ? 1 : Parts);
  constexpr auto block = [] {
    if constexpr (detail::extent_given<Block>) {
      return normalize_extent<Block>;
    } else {
      return detail::part_extent<N, (Parts == 0 ? 1 : Parts), (width == 0 ? 1 : width)>();
    }
  }();
  using rules = rule_list<
      shape_error::count_must_be_positive<op::split_columns, count<Parts>>,
      shape_error::parts_must_divide_dimension<op::split_columns, count<Parts>, dim_of<N>>,
      shape_error::parts_times_block_must_equal_dimension<op::split_columns, count<Parts>, dim_of<block>, dim_of<N>>>;
  std::array<basic_matrix<T, M, block>, Parts> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t p = 0; p < Parts; ++p) {
      for (std::size_t i = 0; i < extent_size(M); ++i) {
        for (std::size_t j = 0; j < extent_size(block); ++j) {
          result[p].elements[i][j] = a.elements[i][p * extent_size(block) + j];
        }
      }
    }
  }
  return result;
}

/// Joins equal blocks side by side: the inverse of `split_columns`, the "concat" of multi-head attention.
///
/// | operand  | shape                          |
/// |----------|--------------------------------|
/// | `blocks` | `std::array` of P matrices M x W |
/// | result   | M x (P * W)                    |
///
/// The joined columns are the whole axis again when the blocks are its P parts (`part_of<d_model, P>` gives
/// `d_model`), a plain size otherwise; `Result` names them explicitly (e.g. `d_model{16}`), its size P * W.
///
/// Example:
/// \code
///   auto joined = ctattn::concat_columns(ctattn::split_columns<4>(queries));   // seq x d_model{16} again
///   auto named = ctattn::concat_columns<d_model{16}>(d_head_blocks);
/// \endcode
template <auto Result = std::size_t{0}, typename T, auto M, auto W, std::size_t P>
[[nodiscard]] constexpr auto concat_columns(const std::array<basic_matrix<T, M, W>, P>& blocks) noexcept {
  constexpr auto joined = [] {
    if constexpr (detail::extent_given<Result>) {
      return normalize_extent<Result>;
    } else {
      return detail::joined_extent<W, P>();
    }
  }();
  basic_matrix<T, M, joined> result{};
  if constexpr (shape_error::parts_times_block_must_equal_dimension<op::concat_columns, count<P>, dim_of<W>,
                                                                    dim_of<joined>>::check()) {
    for (std::size_t p = 0; p < P; ++p) {
      for (std::size_t i = 0; i < extent_size(M); ++i) {
        for (std::size_t j = 0; j < extent_size(W); ++j) {
          result.elements[i][p * extent_size(W) + j] = blocks[p].elements[i][j];
        }
      }
    }
  }
  return result;
}

namespace detail {
// Copies `part` into `result` starting at column `offset`, then advances the offset. A function, not a lambda:
// see the rationale in ctattn/matrix/elementwise.hpp.
template <typename Result, typename Part>
constexpr void append_columns(Result& result, const Part& part, std::size_t& offset) noexcept {
  for (std::size_t i = 0; i < Result::rows; ++i) {
    for (std::size_t j = 0; j < Part::cols; ++j) result.elements[i][offset + j] = part.elements[i][j];
  }
  offset += Part::cols;
}
}  // namespace detail

/// Joins matrices of any widths side by side (their rows must match; same element type).
///
/// | operand | shape              |
/// |---------|--------------------|
/// | `a`     | M x N1             |
/// | `rest`  | M x N2, M x N3 ... |
/// | result  | M x (N1 + N2 + ...)|
///
/// Example:
/// \code
///   auto qkv = ctattn::concat_columns(q, k, v);
/// \endcode
template <FixedMatrix A, FixedMatrix... Rest>
  requires(sizeof...(Rest) >= 1)
[[nodiscard]] constexpr auto concat_columns(const A& a, const Rest&... rest) noexcept {
  constexpr std::size_t total = (A::cols + ... + Rest::cols);
  using rules = rule_list<rule_list<detail::same_element_rule<op::concat_columns, A, Rest>,
                                    detail::rows_rule<op::concat_columns, A, Rest>>...>;
  basic_matrix<typename A::value_type, A::row_extent, total> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    std::size_t offset = 0;
    detail::append_columns(result, a, offset);
    (detail::append_columns(result, rest, offset), ...);
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_BLOCKS_HPP
