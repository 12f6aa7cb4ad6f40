#ifndef CTATTN_MATRIX_MULTIPLY_HPP
#define CTATTN_MATRIX_MULTIPLY_HPP

#include <cstddef>
#include <type_traits>

#include "ctattn/detail/unrolled.hpp"
#include "ctattn/matrix/detail/rules.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// Whether `A * B` is a valid product: same element type, and A's columns match B's rows (equal sizes, and
/// equal names when both are named).
///
/// Example:
/// \code
///   static_assert(ctattn::Multipliable<ctattn::matrix<float, 6, 16>, ctattn::matrix<float, 16, 24>>);
///   static_assert(!ctattn::Multipliable<ctattn::matrix<float, 6, d_k{64}>, ctattn::matrix<float, d_v{64}, 6>>);
/// \endcode
template <typename A, typename B>
concept Multipliable =
    FixedMatrix<A> && FixedMatrix<B> &&
    std::is_same_v<typename std::remove_cvref_t<A>::value_type, typename std::remove_cvref_t<B>::value_type> &&
    extents_match(std::remove_cvref_t<A>::column_extent, std::remove_cvref_t<B>::row_extent);

/// The matrix product `a b`.
///
/// | operand | shape    |
/// |---------|----------|
/// | `a`     | M x K    |
/// | `b`     | K' x N   |
/// | result  | M x N    |
///
/// Rule: K and K' match (equal sizes; equal names when both are named: `d_k{64}` never meets `d_v{64}`), and
/// both hold the same element type. The result keeps a's row extent and b's column extent.
///
/// Each result element is summed in the order k = 0, 1, ..., K-1, starting from +0.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 2> a{{{1, 2}, {3, 4}}};
///   static_assert(ctattn::multiply(a, a)(1, 1) == 22.0f);   // also a * a
/// \endcode
template <typename T, auto M, auto K, auto K2, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> multiply(const basic_matrix<T, M, K>& a,
                                                        const basic_matrix<T, K2, N>& b) noexcept {
  using A = basic_matrix<T, M, K>;
  using B = basic_matrix<T, K2, N>;
  static_assert(detail::inner_rule<op::multiply, A, B>,
                "ctattn::multiply(a, b): the columns of a must match the rows of b (equal sizes, and equal names "
                "when both are named); transpose an operand, or relabel a dimension with ctattn::with_extents "
                "if the two axes really are the same");
  basic_matrix<T, M, N> result{};
  if constexpr (extents_match(K, K2)) {
    // Rationale: the i-k-j order streams rows of b and of the result, so the innermost loop is independent
    // across j: compilers vectorize it without reordering any sum. Every element is still summed over k in
    // ascending order, so the result is the same bit for bit as the textbook i-j-k loop. Constant-evaluated,
    // the same sums are formed as unrolled dot products over local copies instead (the evaluators' fast form:
    // see detail/unrolled.hpp).
    if (std::is_constant_evaluated()) {
      detail::unrolled_product(result.elements, a.elements, b.elements);
      return result;
    }
    for (std::size_t i = 0; i < A::rows; ++i) {
      T(&result_row)[B::cols] = result.elements[i];
      for (std::size_t k = 0; k < A::cols; ++k) {
        const T a_ik = a.elements[i][k];
        const T(&b_row)[B::cols] = b.elements[k];
        for (std::size_t j = 0; j < B::cols; ++j) result_row[j] += a_ik * b_row[j];
      }
    }
  }
  return result;
}

/// Mixed element types are rejected with a message naming both types (no silent float/double mixing).
template <typename T, auto M, auto K, typename U, auto K2, auto N>
  requires(!std::is_same_v<T, U>)
constexpr basic_matrix<T, M, N> multiply(const basic_matrix<T, M, K>&, const basic_matrix<U, K2, N>&) noexcept {
  static_assert(detail::same_element_rule<op::multiply, basic_matrix<T, M, K>, basic_matrix<U, K2, N>>,
                "ctattn::multiply(a, b): a and b must hold the same element type; convert one with "
                "ctattn::cast<T>(m)");
  return {};
}

/// `a * b` is `multiply(a, b)`.
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator*(const A& a, const B& b) noexcept {
  return multiply(a, b);
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_MULTIPLY_HPP
