// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_FROM_ARRAY_HPP
#define CTATTN_MATRIX_FROM_ARRAY_HPP

#include <cstddef>
#include <optional>
#include <span>

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
  using rules =
      rule_list<shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, R>, dim_of<rows>>,
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

/// Data known only at run time (read from a file, received in a buffer) as a matrix of the type you name: the
/// values fill it row by row. The length is checked: a span of the wrong length gives `std::nullopt`, never a
/// partly filled matrix or a read past the end. A span whose length is part of its type is checked at compile
/// time instead (`relabelled_dimension_must_keep_its_size`).
///
/// | operand  | shape                                      |
/// |----------|--------------------------------------------|
/// | `values` | rows * cols elements of M's element type   |
/// | result   | `std::optional<M>`                         |
///
/// Example:
/// \code
///   std::vector<float> buffer = read_weights(file);              // host code
///   auto w = ctattn::from_span<ctattn::matrix<float, d_model{16}, d_k{24}>>(buffer);
///   if (!w) std::fputs("expected 16 x 24 floats\n", stderr);
/// \endcode
template <FixedMatrix M, std::size_t Extent>
[[nodiscard]] constexpr std::optional<M> from_span(std::span<const typename M::value_type, Extent> values) noexcept {
  if constexpr (Extent != std::dynamic_extent) {
    if constexpr (!shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, Extent>,
                                                                        dim<unnamed, M::size>>::check()) {
      return std::nullopt;
    }
  }
  if (values.size() != M::size) return std::nullopt;
  M result{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) result.elements[i][j] = values[i * M::cols + j];
  }
  return result;
}

/// \copydoc from_span
// Rationale: a std::vector, std::array or C array converts to a span only through this overload; the template
// above cannot deduce its element type from them.
template <FixedMatrix M, typename Range>
  requires std::is_convertible_v<const Range&, std::span<const typename M::value_type>>
[[nodiscard]] constexpr std::optional<M> from_span(const Range& values) noexcept {
  if constexpr (requires { std::span{values}; }) {
    return from_span<M>(std::span<const typename M::value_type, decltype(std::span{values})::extent>(values));
  } else {
    return from_span<M>(std::span<const typename M::value_type>(values));
  }
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_FROM_ARRAY_HPP
