// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_ROW_HPP
#define CTATTN_MATRIX_ROW_HPP

#include <cstddef>

#include "ctattn/detail/config.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// Row `I` as a 1 x N matrix, the index checked at compile time.
///
/// | operand | shape |
/// |---------|-------|
/// | `a`     | M x N |
/// | result  | 1 x N |
///
/// Rule: I < M.
///
/// Example:
/// \code
///   constexpr auto second_query = ctattn::row<1>(queries);
/// \endcode
template <std::size_t I, typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, std::size_t{1}, N> row(const basic_matrix<T, M, N>& a) noexcept {
  basic_matrix<T, std::size_t{1}, N> result{};
  if constexpr (shape_error::index_must_be_inside_dimension<op::row, count<I>, dim_of<M>>::check()) {
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) result.elements[0][j] = a.elements[I][j];
  }
  return result;
}

/// Row `i` as a 1 x N matrix, the index known only at run time. Precondition: i < M (a compile error in
/// constant evaluation; a trap at run time when CTATTN_CHECK_PRECONDITIONS is on).
///
/// Example:
/// \code
///   for (std::size_t i = 0; i < 6; ++i) use(ctattn::row(queries, i));
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, std::size_t{1}, N> row(const basic_matrix<T, M, N>& a, std::size_t i) noexcept {
  detail::expects(i < basic_matrix<T, M, N>::rows);
  basic_matrix<T, std::size_t{1}, N> result{};
  for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) result.elements[0][j] = a.elements[i][j];
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_ROW_HPP
