// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_COMPARE_HPP
#define CTATTN_MATRIX_COMPARE_HPP

#include <cstddef>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// The largest |a(i,j) - b(i,j)|; NaN if any element of either is NaN.
///
/// | operand | shape   |
/// |---------|---------|
/// | `a`     | M x N   |
/// | `b`     | M' x N' |
///
/// Rule: same shape, same element type.
///
/// Example:
/// \code
///   static_assert(ctattn::max_abs_difference(a, a) == 0.0f);
/// \endcode
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto max_abs_difference(const A& a, const B& b) noexcept {
  using T = typename A::value_type;
  T largest{0};
  if constexpr (detail::first_broken<detail::same_shape_rules<op::approx_equal, A, B>>::check()) {
    for (std::size_t i = 0; i < A::rows; ++i) {
      for (std::size_t j = 0; j < A::cols; ++j) {
        const T d = a.elements[i][j] > b.elements[i][j] ? a.elements[i][j] - b.elements[i][j]
                                                        : b.elements[i][j] - a.elements[i][j];
        if (d != d) return d;  // a NaN in either operand makes the difference NaN
        if (!(d <= largest)) largest = d;
      }
    }
  }
  return largest;
}

/// Whether every element of `a` is within `absolute + relative * |b(i,j)|` of the same element of `b`.
/// A NaN anywhere makes the answer false; infinities compare equal only to the same infinity.
///
/// | operand | shape   |
/// |---------|---------|
/// | `a`     | M x N   |
/// | `b`     | M' x N' (the reference) |
///
/// Rule: same shape, same element type.
///
/// Example:
/// \code
///   static_assert(ctattn::approx_equal(computed, expected, 1e-6f, 1e-5f));
/// \endcode
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr bool approx_equal(const A& a, const B& b, typename A::value_type absolute,
                                          typename A::value_type relative = 0) noexcept {
  using T = typename A::value_type;
  if constexpr (detail::first_broken<detail::same_shape_rules<op::approx_equal, A, B>>::check()) {
    for (std::size_t i = 0; i < A::rows; ++i) {
      for (std::size_t j = 0; j < A::cols; ++j) {
        const T x = a.elements[i][j];
        const T y = b.elements[i][j];
        if (x == y) continue;  // equal values, including equal infinities
        const T d = x > y ? x - y : y - x;
        const T magnitude = y < 0 ? -y : y;
        if (!(d <= absolute + relative * magnitude)) return false;  // also false for NaN and infinities
      }
    }
    return true;
  } else {
    return false;
  }
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_COMPARE_HPP
