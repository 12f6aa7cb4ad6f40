// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_CONSTANT_HPP
#define CTATTN_KERNELS_CONSTANT_HPP

/// \file
/// The constant-evaluated backend: the exact arithmetic of kernels/scalar.hpp in the form the constant evaluators
/// run fastest. Dot products and multiply-adds over whole rows are one expression per row (a fold over a
/// compile-time index pack) instead of a loop, and the attention kernel works on local copies of its operands.
///
/// | helper                                 | operands (y, then the inputs)         | result                         |
/// |----------------------------------------|---------------------------------------|--------------------------------|
/// | `unrolled_dot(a, b)`                   | a, b: `const T (&)[N]`                | (+0 + a[0] b[0]) + a[1] b[1].. |
/// | `unrolled_axpy(y, s, x)`               | `T (&)[N]`, `T`, `const T (&)[N]`     | y[c] += s x[c], c = 0 ... N-1  |
/// | `unrolled_product(y, a, b)`            | R x C, R x K, K x C (`T (&)[.][.]`)   | y = a b                        |
/// | `unrolled_product_transposed(y, a, b)` | R x C, R x K, C x K                   | y = a b^T                      |
/// | `constant::attend<W, DK, DV>(...)`      | as `scalar::attend`                   | as `scalar::attend`            |
///
/// All do every addition in exactly the order of the plain loops `acc += a[c] * b[c]` and
/// `y[c] += s * x[c]`, so they give the same bits as those loops: kernels/dispatch.hpp uses these when
/// constant-evaluated and the scalar loops for exact arithmetic at run time.
///
/// Rationale: both compilers evaluate constant expressions at a cost per loop iteration, per index computation,
/// per statement and per read through a reference that is larger than the cost of the arithmetic. A fold over an
/// index pack has no loop and no index computation: its indices are literals fixed at instantiation. Instructions
/// per multiply-add (`benchmarks/compile_time_forms.sh`, docs/compile_time.md): Clang 14 takes 28 thousand in a
/// plain loop, 24 thousand with eight multiply-adds per statement, 15 thousand as a fold, and 12 thousand as a fold
/// over arrays local to the evaluation; GCC 12 takes 85, 79, 34 and 27 thousand. That is why the kernels copy
/// their operands first, and why products are formed as dot products (a fold over two local rows) rather than as
/// row updates. Clang limits a fold to 256 operands (its expression nesting limit), so long rows are folded in
/// chunks of 64, one after the other, which keeps the order.
///
/// Example:
/// \code
///   constexpr float a[3]{1, 2, 3}, b[3]{4, 5, 6};
///   static_assert(ctattn::detail::unrolled_dot(a, b) == 32.0f);
/// \endcode

#include <cstddef>
#include <utility>

#include "ctattn/kernels/scalar.hpp"

namespace ctattn::detail {

/// The largest number of terms folded into one expression.
inline constexpr std::size_t unrolled_chunk = 64;

template <std::size_t Offset, std::size_t... I>
constexpr std::index_sequence<(Offset + I)...> offset_indices(std::index_sequence<I...>) noexcept {
  return {};
}

/// The indices of chunk C of a row of N elements: C * 64, ..., min(N, (C + 1) * 64) - 1.
template <std::size_t C, std::size_t N>
using chunk_indices = decltype(offset_indices<C * unrolled_chunk>(
    std::make_index_sequence<(N - C * unrolled_chunk < unrolled_chunk ? N - C * unrolled_chunk : unrolled_chunk)>{}));

template <std::size_t N>
using chunk_numbers = std::make_index_sequence<(N + unrolled_chunk - 1) / unrolled_chunk>;

template <typename T, std::size_t N, std::size_t... J>
constexpr T dot_terms(T acc, const T (&a)[N], const T (&b)[N], std::index_sequence<J...>) noexcept {
  return (acc + ... + (a[J] * b[J]));
}

template <typename T, std::size_t N, std::size_t... C>
constexpr T dot_chunks(const T (&a)[N], const T (&b)[N], std::index_sequence<C...>) noexcept {
  T acc{0};
  ((acc = dot_terms(acc, a, b, chunk_indices<C, N>{})), ...);
  return acc;
}

/// a[0] b[0] + a[1] b[1] + ... + a[N-1] b[N-1], added left to right starting from +0.
template <typename T, std::size_t N>
constexpr T unrolled_dot(const T (&a)[N], const T (&b)[N]) noexcept {
  if constexpr (N <= unrolled_chunk) {
    return dot_terms(T{0}, a, b, std::make_index_sequence<N>{});
  } else {
    return dot_chunks(a, b, chunk_numbers<N>{});
  }
}

template <typename T, std::size_t N, std::size_t... J>
constexpr void axpy_terms(T (&y)[N], T s, const T (&x)[N], std::index_sequence<J...>) noexcept {
  ((y[J] += s * x[J]), ...);
}

template <typename T, std::size_t N, std::size_t... C>
constexpr void axpy_chunks(T (&y)[N], T s, const T (&x)[N], std::index_sequence<C...>) noexcept {
  (axpy_terms(y, s, x, chunk_indices<C, N>{}), ...);
}

/// y[c] += s x[c] for c = 0, 1, ..., N-1.
template <typename T, std::size_t N>
constexpr void unrolled_axpy(T (&y)[N], T s, const T (&x)[N]) noexcept {
  if constexpr (N <= unrolled_chunk) {
    axpy_terms(y, s, x, std::make_index_sequence<N>{});
  } else {
    axpy_chunks(y, s, x, chunk_numbers<N>{});
  }
}

// y[i][c] = unrolled_dot(a[i], columns[c]), with a's current row copied into a local array first.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void dot_rows(T (&y)[R][C], const T (&a)[R][K], const T (&columns)[C][K]) noexcept {
  T row[K]{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) row[k] = a[i][k];
    for (std::size_t c = 0; c < C; ++c) y[i][c] = unrolled_dot(row, columns[c]);
  }
}

/// y = a b: y[i][c] = a[i][0] b[0][c] + a[i][1] b[1][c] + ... + a[i][K-1] b[K-1][c], added left to right from
/// +0, the same order as the i-k-j loop `y[i][c] += a[i][k] * b[k][c]` over rows of b.
// Rationale: as dot products over local copies (b's columns as rows, and a's current row), every term reads two
// arrays local to the evaluation with literal indices: 14% fewer instructions than row updates on GCC 12 and 16%
// fewer on Clang 14 (`benchmarks/compile_time_forms.sh`). The copies cost one read and one write per element of
// b, against R reads of each in the product.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void unrolled_product(T (&y)[R][C], const T (&a)[R][K], const T (&b)[K][C]) noexcept {
  T columns[C][K]{};
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t c = 0; c < C; ++c) columns[c][k] = b[k][c];
  }
  dot_rows(y, a, columns);
}

/// y = a b^T for b given as its C rows of K elements (nn.Linear's layout): y[i][c] = unrolled_dot(a[i], b[c]).
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void unrolled_product_transposed(T (&y)[R][C], const T (&a)[R][K], const T (&b)[C][K]) noexcept {
  T columns[C][K]{};
  for (std::size_t c = 0; c < C; ++c) {
    for (std::size_t k = 0; k < K; ++k) columns[c][k] = b[c][k];
  }
  dot_rows(y, a, columns);
}

namespace constant {

/// The constant-evaluated form of `scalar::attend`: the same arithmetic in the same order, so the same bits.
// Rationale: the constant evaluators read an element of an array local to the evaluation faster than one of a
// constexpr variable, and fold expressions with literal indices faster than loops (see above). So this head's keys
// and values, and each query row, are first copied into exact-size local arrays (O(n d) copies against O(n^2 d)
// multiply-adds), and every score and every context row is one unrolled expression. Each context row is summed
// from +0 into a local row and then added to the output's +0, which changes no bit.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale) noexcept {
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  T keys[n_kv][DK]{};
  T values[n_kv][DV]{};
  for (std::size_t j = 0; j < n_kv; ++j) {
    for (std::size_t c = 0; c < DK; ++c) keys[j][c] = k.elements[j][columns.key_offset + c];
    for (std::size_t c = 0; c < DV; ++c) values[j][c] = v.elements[j][columns.value_offset + c];
  }
  T query[DK]{};
  T context[DV]{};
  T scores[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t c = 0; c < DK; ++c) query[c] = q.elements[i][columns.query_offset + c];
    const auto range = mask.keys(i, n_q, n_kv);
    score_row(mask, i, range, scale, scores, [&](std::size_t key) { return unrolled_dot(query, keys[key]); });
    softmax_row(scores, probabilities, range.begin, range.end);
    for (std::size_t c = 0; c < DV; ++c) context[c] = T{0};
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      unrolled_axpy(context, p, values[j]);
    }
    for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output_offset + c] += context[c];
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

}  // namespace constant
}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_CONSTANT_HPP
