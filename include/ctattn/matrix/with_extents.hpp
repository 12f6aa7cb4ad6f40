// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_WITH_EXTENTS_HPP
#define CTATTN_MATRIX_WITH_EXTENTS_HPP

#include <cstddef>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// The same values under other extents of the same sizes: names a plain axis, renames one, or drops a name.
/// This is the one explicit way to say "these two axes are the same"; nothing else converts between names.
///
/// | operand | shape     |
/// |---------|-----------|
/// | `a`     | M x N     |
/// | result  | Rows x Cols, with size(Rows) = M and size(Cols) = N |
///
/// Rule: the sizes are kept.
///
/// Example:
/// \code
///   auto x = ctattn::with_extents<seq{6}, d_model{16}>(plain_6_by_16);
/// \endcode
template <auto Rows, auto Cols, typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, normalize_extent<Rows>, normalize_extent<Cols>> with_extents(
    const basic_matrix<T, M, N>& a) noexcept {
  constexpr auto rows = normalize_extent<Rows>;
  constexpr auto cols = normalize_extent<Cols>;
  using rules =
      rule_list<shape_error::relabelled_dimension_must_keep_its_size<op::with_extents, dim_of<M>, dim_of<rows>>,
                shape_error::relabelled_dimension_must_keep_its_size<op::with_extents, dim_of<N>, dim_of<cols>>>;
  basic_matrix<T, rows, cols> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t i = 0; i < extent_size(M); ++i) {
      for (std::size_t j = 0; j < extent_size(N); ++j) result.elements[i][j] = a.elements[i][j];
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_WITH_EXTENTS_HPP
