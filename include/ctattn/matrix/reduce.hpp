// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_REDUCE_HPP
#define CTATTN_MATRIX_REDUCE_HPP

#include <cstddef>

#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

namespace detail {
// Named function objects, not lambdas: see the rationale in ctattn/matrix/elementwise.hpp.
struct larger_skipping_nan {
  template <typename T>
  constexpr T operator()(T largest, T element) const noexcept {
    return (element > largest || largest != largest) ? element : largest;
  }
};
struct running_sum {
  template <typename T>
  constexpr T operator()(T total, T element) const noexcept {
    return total + element;
  }
};
}  // namespace detail

/// Folds each row from left to right: `reduce_rows(a, init, f)(i, 0) == f(...f(f(init, a(i,0)), a(i,1))..., a(i,N-1))`.
///
/// | operand | shape  |
/// |---------|--------|
/// | `a`     | M x N  |
/// | result  | M x 1  |
///
/// Example:
/// \code
///   auto sums = ctattn::reduce_rows(a, 0.0f, [](float acc, float x) { return acc + x; });
/// \endcode
template <typename T, auto M, auto N, typename F>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> reduce_rows(const basic_matrix<T, M, N>& a, T init,
                                                                       F f) noexcept {
  basic_matrix<T, M, std::size_t{1}> result{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    T acc = init;
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) acc = f(acc, a.elements[i][j]);
    result.elements[i][0] = acc;
  }
  return result;
}

/// The largest element of each row (M x 1). A NaN element is skipped unless the whole row is NaN.
/// Example: `static_assert(ctattn::row_max(a)(0, 0) == 3.0f);`
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> row_max(const basic_matrix<T, M, N>& a) noexcept {
  return reduce_rows(a, a.elements[0][0], detail::larger_skipping_nan{});
}

/// The sum of each row (M x 1), added from left to right starting at +0.
/// Example: `static_assert(ctattn::row_sum(a)(1, 0) == 15.0f);`
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> row_sum(const basic_matrix<T, M, N>& a) noexcept {
  return reduce_rows(a, T{0}, detail::running_sum{});
}

/// The sum of all elements, row by row, left to right, starting at +0.
template <typename T, auto M, auto N>
[[nodiscard]] constexpr T sum(const basic_matrix<T, M, N>& a) noexcept {
  T acc{0};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) acc += a.elements[i][j];
  }
  return acc;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_REDUCE_HPP
