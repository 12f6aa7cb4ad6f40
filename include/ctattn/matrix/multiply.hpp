// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATRIX_MULTIPLY_HPP
#define CTATTN_MATRIX_MULTIPLY_HPP

#include <cstddef>
#include <type_traits>

#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"

namespace ctattn {

/// Whether `A * B` is a valid product: same element type, and A's columns match B's rows (equal sizes, and
/// equal names when both are named). The rules are `detail::multiply_rules` (ctattn/matrix/rules.hpp).
///
/// Example:
/// \code
///   static_assert(ctattn::Multipliable<ctattn::matrix<float, 6, 16>, ctattn::matrix<float, 16, 24>>);
///   static_assert(!ctattn::Multipliable<ctattn::matrix<float, 6, d_k{64}>, ctattn::matrix<float, d_v{64}, 6>>);
/// \endcode
template <typename A, typename B>
concept Multipliable = FixedMatrix<A> && FixedMatrix<B> &&
                       rules_hold<detail::multiply_rules<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>;

/// The matrix product `a b`.
///
/// | operand | shape    |
/// |---------|----------|
/// | `a`     | M x K    |
/// | `b`     | K' x N   |
/// | result  | M x N    |
///
/// Rules: both hold the same element type (`element_types_must_match`), and K and K' match
/// (`inner_dimensions_must_match`: equal sizes; equal names when both are named, so `d_k{64}` never meets
/// `d_v{64}`). The result keeps a's row extent and b's column extent.
///
/// Each result element is summed in the order k = 0, 1, ..., K-1, starting from +0, with exact arithmetic (in
/// constant evaluation, and at run time with `CTATTN_EXACT_ARITHMETIC=1`); fast arithmetic on float runs the SIMD
/// backend's product (ctattn/kernels/backend.hpp).
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 2> a{{{1, 2}, {3, 4}}};
///   static_assert(ctattn::multiply(a, a)(1, 1) == 22.0f);   // also a * a
/// \endcode
template <typename T, auto M, auto K, typename U, auto K2, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> multiply(const basic_matrix<T, M, K>& a,
                                                       const basic_matrix<U, K2, N>& b) noexcept {
  using A = basic_matrix<T, M, K>;
  using B = basic_matrix<U, K2, N>;
  basic_matrix<T, M, N> result{};
  if constexpr (detail::first_broken<detail::multiply_rules<A, B>>::check()) {
    detail::kernels::product(result.elements, a.elements, b.elements);
  }
  return result;
}

/// `a * b` is `multiply(a, b)`.
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator*(const A& a, const B& b) noexcept {
  return multiply(a, b);
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_MULTIPLY_HPP
