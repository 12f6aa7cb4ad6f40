#ifndef CTATTN_MATRIX_FROM_ARRAY_HPP
#define CTATTN_MATRIX_FROM_ARRAY_HPP

#include <cstddef>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// A matrix copied from a C array `T[R][C]` (weights exported from Python, tables in flash), optionally
/// under named extents of the same sizes.
///
/// | operand | shape          |
/// |---------|----------------|
/// | `array` | `T[R][C]`      |
/// | result  | Rows x Cols (default R x C) |
///
/// Rule: the extents' sizes are R and C.
///
/// Example:
/// \code
///   constexpr float table[2][3] = {{1, 2, 3}, {4, 5, 6}};
///   constexpr auto m = ctattn::from_array(table);                        // matrix<float, 2, 3>
///   constexpr auto x = ctattn::from_array<seq{2}, d_model{3}>(table);    // named
/// \endcode
template <auto Rows = std::size_t{0}, auto Cols = std::size_t{0}, typename T, std::size_t R, std::size_t C>
[[nodiscard]] constexpr auto from_array(const T (&array)[R][C]) noexcept {
  constexpr auto rows = detail::extent_or<Rows, R>;
  constexpr auto cols = detail::extent_or<Cols, C>;
  using rules = rule_list<shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, R>, dim_of<rows>>,
                          shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, C>, dim_of<cols>>>;
  basic_matrix<T, rows, cols> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t i = 0; i < R; ++i) {
      for (std::size_t j = 0; j < C; ++j) result.elements[i][j] = array[i][j];
    }
  }
  return result;
}

/// A 1 x N row vector copied from a C array `T[N]` (a bias, a single token), optionally under a named extent.
/// Example: `constexpr auto b = ctattn::row_from_array(bias);`
template <auto Cols = std::size_t{0}, typename T, std::size_t N>
[[nodiscard]] constexpr auto row_from_array(const T (&array)[N]) noexcept {
  constexpr auto cols = detail::extent_or<Cols, N>;
  basic_matrix<T, std::size_t{1}, cols> result{};
  if constexpr (shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, N>,
                                                                     dim_of<cols>>::check()) {
    for (std::size_t j = 0; j < N; ++j) result.elements[0][j] = array[j];
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_FROM_ARRAY_HPP
