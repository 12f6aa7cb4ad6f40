// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_GRADIENT_HPP
#define CTATTN_ATTENTION_GRADIENT_HPP

/// \file
/// Gradients: the softmax Jacobian, the backward pass of a row-wise softmax, and the backward pass of
/// single-head scaled dot-product attention, in constant expressions and at run time with the same bits.

#include <cstddef>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/options.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

namespace detail::gradient {

// dL/dx for one row y = softmax(x), given w = y and u = dL/dy: w_j (u_j - sum_k w_k u_k). `result` may be `u`.
template <typename T, std::size_t N>
constexpr void softmax_row_backward(const T (&w)[N], const T (&u)[N], T (&result)[N]) noexcept {
  T dot{0};
  for (std::size_t j = 0; j < N; ++j) dot += w[j] * u[j];
  for (std::size_t j = 0; j < N; ++j) result[j] = w[j] * (u[j] - dot);
}

/// Query rows per block of the backward pass.
inline constexpr std::size_t backward_block = 16;

// Rows [r0, r0 + Rows) of the backward pass: their P = softmax(Q K^T / scale) and dS recomputed in Rows x n_kv
// buffers, their rows of dQ (divided by the scale), and their terms of dV and dK (not yet divided) added on.
template <arithmetic A, std::size_t Rows, typename Q, typename K, typename V, typename G, typename Grad, typename T>
constexpr void backward_rows(const Q& queries, const K& keys, const V& values, const G& upstream, Grad& grad,
                             std::size_t r0, T scale) noexcept {
  constexpr std::size_t n_kv = K::rows;
  constexpr std::size_t d_k = Q::cols;
  constexpr std::size_t d_v = V::cols;
  T query_rows[Rows][d_k]{};
  T upstream_rows[Rows][d_v]{};
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t c = 0; c < d_k; ++c) query_rows[r][c] = queries.elements[r0 + r][c];
    for (std::size_t c = 0; c < d_v; ++c) upstream_rows[r][c] = upstream.elements[r0 + r][c];
  }
  // P, in place of the scores.
  T weights[Rows][n_kv]{};
  kernels::product_transposed<A>(weights, query_rows, keys.elements);
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t j = 0; j < n_kv; ++j) weights[r][j] = weights[r][j] / scale;
    kernels::softmax_row<A>(weights[r], weights[r], 0, n_kv);
  }
  // dP = G V^T, then dS = the softmax backward of each row, in place; dV += P^T G.
  T d_scores[Rows][n_kv]{};
  kernels::product_transposed<A>(d_scores, upstream_rows, values.elements);
  for (std::size_t r = 0; r < Rows; ++r) softmax_row_backward(weights[r], d_scores[r], d_scores[r]);
  kernels::product_left_transposed<A, true>(grad.values.elements, weights, upstream_rows);
  // dQ = dS K / scale for these rows; dK += dS^T Q.
  T query_gradient[Rows][d_k]{};
  kernels::product<A>(query_gradient, d_scores, keys.elements);
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t c = 0; c < d_k; ++c) grad.queries.elements[r0 + r][c] = query_gradient[r][c] / scale;
  }
  kernels::product_left_transposed<A, true>(grad.keys.elements, d_scores, query_rows);
}

}  // namespace detail::gradient

/// The Jacobian of the softmax at a point, from the softmax's output s (a 1 x N row):
/// J(i, k) = d s_i / d z_k = s_i (delta_ik - s_k), that is diag(s) - s s^T. Symmetric; each row sums to 0
/// (up to rounding), because the outputs always sum to 1.
///
/// | operand         | shape                        |
/// |-----------------|------------------------------|
/// | `probabilities` | 1 x N (a softmax output s)   |
/// | result          | N x N                        |
///
/// Rule: one row (`rows_must_match<op::softmax_jacobian, dim<..., M>, dim<unnamed, 1>>`). For the Jacobian at
/// the logits z, use `softmax_jacobian_from_logits(z)`.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<double, 1, 2> s{{{0.25, 0.75}}};
///   constexpr auto j = ctattn::softmax_jacobian(s);
///   static_assert(j(0, 0) == 0.1875 && j(0, 1) == -0.1875);   // 0.25 - 0.25^2, -0.25 * 0.75
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, N, N> softmax_jacobian(const basic_matrix<T, M, N>& probabilities) noexcept {
  basic_matrix<T, N, N> jacobian{};
  if constexpr (shape_error::must_be_a_single_row<op::softmax_jacobian, dim_of<M>>::check()) {
    constexpr std::size_t n = extent_size(N);
    for (std::size_t i = 0; i < n; ++i) {
      const T s_i = probabilities.elements[0][i];
      for (std::size_t k = 0; k < n; ++k) {
        const T diagonal = i == k ? s_i : T{0};
        jacobian.elements[i][k] = diagonal - s_i * probabilities.elements[0][k];
      }
    }
  }
  return jacobian;
}

/// The Jacobian of the softmax at the logits z (a 1 x N row): `softmax_jacobian(softmax_rows(z))`, with the
/// library's stable softmax (the row maximum subtracted before ctattn::math::exp).
///
/// | operand  | shape  |
/// |----------|--------|
/// | `logits` | 1 x N  |
/// | result   | N x N  |
///
/// Rule: one row, as for `softmax_jacobian`.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> z{{{1000, 1001, 999}}};
///   constexpr auto j = ctattn::softmax_jacobian_from_logits(z);   // finite: no exp(1000) is ever taken
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, N, N> softmax_jacobian_from_logits(
    const basic_matrix<T, M, N>& logits) noexcept {
  basic_matrix<T, std::size_t{1}, N> probabilities{};
  if constexpr (shape_error::must_be_a_single_row<op::softmax_jacobian, dim_of<M>>::check()) {
    detail::softmax_row(logits.elements[0], probabilities.elements[0], 0, extent_size(N));
  }
  return softmax_jacobian(probabilities);
}

/// The backward pass of a row-wise softmax W = softmax_rows(X): given W and the upstream gradient U = dL/dW,
/// returns dL/dX, row by row dL/dx = u J(w) = w * (u - <w, u>) (element-wise), without forming any Jacobian.
///
/// | operand    | shape               |
/// |------------|---------------------|
/// | `weights`  | M x N (the softmax output W) |
/// | `upstream` | M x N (dL/dW)       |
/// | result     | M x N (dL/dX, the extents of `weights`) |
///
/// Rule: same shape and element type (`rows_must_match` / `columns_must_match` with `op::softmax_backward`).
///
/// Example:
/// \code
///   const auto d_scores = ctattn::softmax_rows_backward(weights, upstream);
/// \endcode
template <FixedMatrix W, FixedMatrix U>
[[nodiscard]] constexpr W softmax_rows_backward(const W& weights, const U& upstream) noexcept {
  W result{};
  if constexpr (detail::first_broken<detail::same_shape_rules<op::softmax_backward, W, U>>::check()) {
    for (std::size_t i = 0; i < W::rows; ++i) {
      detail::gradient::softmax_row_backward(weights.elements[i], upstream.elements[i], result.elements[i]);
    }
  }
  return result;
}

/// The gradients of a loss L with respect to the three inputs of scaled dot-product attention; each member has
/// exactly the type (shape and extents) of the input it belongs to.
///
/// | member    | meaning | shape        |
/// |-----------|---------|--------------|
/// | `queries` | dL/dQ   | n_q x d_k    |
/// | `keys`    | dL/dK   | n_kv x d_k   |
/// | `values`  | dL/dV   | n_kv x d_v   |
///
/// Example: `const auto grad = ctattn::attention_backward(q, k, v, g); use(grad.queries);`
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V>
struct attention_gradients {
  Q queries;
  K keys;
  V values;
};

/// The backward pass of single-head scaled dot-product attention O = softmax(Q K^T / sqrt(d_k)) V: given the
/// inputs and the upstream gradient G = dL/dO, returns dL/dQ, dL/dK and dL/dV.
///
///     S  = Q K^T / sqrt(d_k)          P  = softmax_rows(S)       (recomputed, stably)
///     dV = P^T G                      dP = G V^T
///     dS = P * (dP - rowsum(P * dP))  (element-wise; the softmax backward)
///     dQ = dS K / sqrt(d_k)           dK = dS^T Q / sqrt(d_k)
///
/// | operand    | shape        |
/// |------------|--------------|
/// | `queries`  | n_q x d_k    |
/// | `keys`     | n_kv x d_k   |
/// | `values`   | n_kv x d_v   |
/// | `upstream` | n_q x d_v (G = dL/dO) |
/// | result     | `attention_gradients` {queries: n_q x d_k, keys: n_kv x d_k, values: n_kv x d_v} |
///
/// Rules, those of the forward pass plus the shape of G (same element type everywhere): Q's columns match K's
/// columns (`query_and_key_widths_must_match<op::attention_backward, ...>`); K's rows match V's rows
/// (`key_and_value_counts_must_match`); G's rows match Q's rows (`rows_must_match`) and G's columns match V's
/// columns (`columns_must_match`). Matching means equal sizes, and equal names when both are named.
///
/// No mask: every query attends to every key. P and dS are recomputed for 16 query rows at a time, so the stack
/// holds 2 x 16 x n_kv elements of them, never n_q x n_kv. The weights P are recomputed exactly as
/// `scaled_dot_product_attention` computes them (same sums, same division by sqrt(d_k), same stable softmax),
/// so they are bit for bit the forward pass's weights. Every sum runs in ascending index order and the
/// gradients of Q and K are divided by sqrt(d_k) (true divisions): with exact arithmetic the result is the same
/// in constant evaluation and at run time. At run time on float the products and the softmax run the SIMD backend
/// (docs/kernels.md gives the bound) unless the call passes `ctattn::exact_arithmetic` last or the build defines
/// `CTATTN_EXACT_ARITHMETIC=1`. These are the gradients
/// of any loss L whose gradient with respect to O is G (for L = sum(O * G) exactly what PyTorch autograd gives).
///
/// Example:
/// \code
///   constexpr auto grad = ctattn::attention_backward(q, k, v, g);   // q 4x6, k 5x6, v 5x3, g 4x3
///   static_assert(grad.keys.rows == 5);
///   const auto same_bits = ctattn::attention_backward(q, k, v, g, ctattn::exact_arithmetic);   // at run time
/// \endcode
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V, FixedMatrix G, arithmetic A = default_arithmetic>
[[nodiscard]] constexpr attention_gradients<Q, K, V> attention_backward(const Q& queries, const K& keys,
                                                                        const V& values, const G& upstream,
                                                                        arithmetic_option<A> = {}) noexcept {
  using op_tag = op::attention_backward;
  // The forward pass's rules, then the upstream gradient dL/dO: one row per query, one column per value feature.
  using rules =
      rule_list<detail::attention_rules<op_tag, Q, K, V, no_mask_type>, detail::same_element_rule<op_tag, G, Q>,
                detail::rows_rule<op_tag, G, Q>, detail::columns_rule<op_tag, G, V>>;
  using T = typename Q::value_type;
  attention_gradients<Q, K, V> grad{};
  if constexpr (detail::first_broken<rules>::check()) {
    constexpr std::size_t n_q = Q::rows;
    constexpr std::size_t n_kv = K::rows;
    constexpr std::size_t d_k = Q::cols;
    const T scale = math::sqrt(static_cast<T>(d_k));
    // Rationale: blocks of query rows, so that the recomputed P and dS take 2 x block x n_kv elements of stack,
    // not 2 n_q n_kv; dV and dK add each block's terms in row order, the same sums as one pass over all rows.
    constexpr std::size_t block = detail::gradient::backward_block;
    if constexpr (n_q >= block) {
      for (std::size_t r0 = 0; r0 + block <= n_q; r0 += block) {
        detail::gradient::backward_rows<A, block>(queries, keys, values, upstream, grad, r0, scale);
      }
    }
    if constexpr (n_q % block != 0) {
      detail::gradient::backward_rows<A, n_q % block>(queries, keys, values, upstream, grad, n_q - n_q % block, scale);
    }
    for (std::size_t j = 0; j < n_kv; ++j) {
      for (std::size_t c = 0; c < d_k; ++c) grad.keys.elements[j][c] = grad.keys.elements[j][c] / scale;
    }
  }
  return grad;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_GRADIENT_HPP
