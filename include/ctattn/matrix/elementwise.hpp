// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_ELEMENTWISE_HPP
#define CTATTN_MATRIX_ELEMENTWISE_HPP

#include <cstddef>
#include <type_traits>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// Whether `a` and `b` can be combined element by element: same element type, matching rows and columns.
/// The result takes the named extent wherever one operand names it.
///
/// Example:
/// \code
///   static_assert(ctattn::SameShape<ctattn::matrix<float, 2, 3>, ctattn::matrix<float, 2, 3>>);
/// \endcode
template <typename A, typename B>
concept SameShape = FixedMatrix<A> && FixedMatrix<B> &&
                    rules_hold<detail::same_shape_rules<op::add, std::remove_cvref_t<A>, std::remove_cvref_t<B>>>;

namespace detail {

// The shared body of every element-wise binary operation: the rules, then f applied at each position.
template <typename Op, typename A, typename B, typename F>
constexpr auto zip_elements(const A& a, const B& b, F f) noexcept {
  using value = std::remove_cvref_t<decltype(f(a.elements[0][0], a.elements[0][0]))>;
  basic_matrix<value, unify_extents(A::row_extent, B::row_extent), unify_extents(A::column_extent, B::column_extent)>
      result{};
  if constexpr (first_broken<same_shape_rules<Op, A, B>>::check()) {
    for (std::size_t i = 0; i < A::rows; ++i) {
      for (std::size_t j = 0; j < A::cols; ++j) {
        result.elements[i][j] = f(a.elements[i][j], b.elements[i][j]);
      }
    }
  }
  return result;
}

// Rationale: named function objects rather than lambdas. GCC's -Wshadow reports a lambda parameter in a header
// template as shadowing any user global of the same name (a global `x` is common in examples); member functions
// of a named class are not reported.
struct add_elements {
  template <typename T>
  constexpr T operator()(T lhs, T rhs) const noexcept {
    return lhs + rhs;
  }
};
struct subtract_elements {
  template <typename T>
  constexpr T operator()(T lhs, T rhs) const noexcept {
    return lhs - rhs;
  }
};
struct multiply_elements {
  template <typename T>
  constexpr T operator()(T lhs, T rhs) const noexcept {
    return lhs * rhs;
  }
};
struct negate_element {
  template <typename T>
  constexpr T operator()(T element) const noexcept {
    return -element;
  }
};
template <typename T>
struct multiply_by {
  T factor;
  constexpr T operator()(T element) const noexcept { return element * factor; }
};
template <typename T>
struct divide_by {
  T divisor;
  constexpr T operator()(T element) const noexcept { return element / divisor; }
};
template <typename U>
struct convert_to {
  template <typename T>
  constexpr U operator()(T element) const noexcept {
    return static_cast<U>(element);
  }
};

}  // namespace detail

/// Applies `f` to every element: `map(a, f)(i, j) == f(a(i, j))`. The result's element type is f's.
///
/// | operand | shape |
/// |---------|-------|
/// | `a`     | M x N |
/// | result  | M x N |
///
/// Example:
/// \code
///   constexpr auto doubled = ctattn::map(a, [](float x) { return 2 * x; });
/// \endcode
template <typename T, auto M, auto N, typename F>
[[nodiscard]] constexpr auto map(const basic_matrix<T, M, N>& a, F f) noexcept {
  using value = std::remove_cvref_t<decltype(f(a.elements[0][0]))>;
  if constexpr (shape_error::element_type_must_be_float_or_double<op::map, value>::check()) {
    basic_matrix<value, M, N> result{};
    for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
      for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) {
        result.elements[i][j] = f(a.elements[i][j]);
      }
    }
    return result;
  } else {
    return a;
  }
}

/// Combines two same-shaped matrices element by element: `zip_map(a, b, f)(i, j) == f(a(i, j), b(i, j))`.
///
/// | operand | shape   |
/// |---------|---------|
/// | `a`     | M x N   |
/// | `b`     | M' x N' |
/// | result  | M x N   |
///
/// Rule: M matches M' and N matches N'; same element type.
///
/// Example:
/// \code
///   auto larger = ctattn::zip_map(a, b, [](float x, float y) { return x > y ? x : y; });
/// \endcode
template <FixedMatrix A, FixedMatrix B, typename F>
[[nodiscard]] constexpr auto zip_map(const A& a, const B& b, F f) noexcept {
  return detail::zip_elements<op::zip_map>(a, b, f);
}

/// The sum `a + b`. Rule: same shape, same element type. Example: `static_assert((a + a)(0, 0) == 2 * a(0, 0));`
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto add(const A& a, const B& b) noexcept {
  return detail::zip_elements<op::add>(a, b, detail::add_elements{});
}

/// The difference `a - b`. Rule: same shape, same element type. Example: `static_assert((a - a) == zero);`
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto subtract(const A& a, const B& b) noexcept {
  return detail::zip_elements<op::subtract>(a, b, detail::subtract_elements{});
}

/// The element-wise (Hadamard) product. Rule: same shape, same element type.
/// Example: `static_assert(ctattn::hadamard(a, a)(0, 1) == a(0, 1) * a(0, 1));`
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto hadamard(const A& a, const B& b) noexcept {
  return detail::zip_elements<op::hadamard>(a, b, detail::multiply_elements{});
}

/// Every element times `s`: `scale(a, s)`, also `s * a` and `a * s`.
/// Example: `static_assert(ctattn::scale(a, 2.0f)(0, 0) == 2 * a(0, 0));`
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> scale(const basic_matrix<T, M, N>& a,
                                                    std::type_identity_t<T> s) noexcept {
  return map(a, detail::multiply_by<T>{s});
}

template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator+(const A& a, const B& b) noexcept {
  return add(a, b);
}

template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator-(const A& a, const B& b) noexcept {
  return subtract(a, b);
}

template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator-(const basic_matrix<T, M, N>& a) noexcept {
  return map(a, detail::negate_element{});
}

template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator*(const basic_matrix<T, M, N>& a,
                                                        std::type_identity_t<T> s) noexcept {
  return scale(a, s);
}

template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator*(std::type_identity_t<T> s,
                                                        const basic_matrix<T, M, N>& a) noexcept {
  return scale(a, s);
}

/// Every element divided by `s` (a true division, not a multiplication by 1/s).
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator/(const basic_matrix<T, M, N>& a,
                                                        std::type_identity_t<T> s) noexcept {
  return map(a, detail::divide_by<T>{s});
}

/// The same values in another element type: `cast<double>(m)`.
template <typename U, typename T, auto M, auto N>
[[nodiscard]] constexpr auto cast(const basic_matrix<T, M, N>& a) noexcept {
  return map(a, detail::convert_to<U>{});
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_ELEMENTWISE_HPP
