// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_SCALAR_HPP
#define CTATTN_KERNELS_SCALAR_HPP

/// \file
/// The scalar backend: the exact arithmetic. Plain loops in which every sum runs in ascending index order from +0
/// and every product and sum is rounded on its own, so that a result at run time has the bits of the same
/// computation in a constant expression (the forms in kernels/constant.hpp do the same additions in the same
/// order). These loops also serve targets without a SIMD backend, double everywhere, and any call that asks for
/// `ctattn::exact_arithmetic`.
///
/// | kernel                          | operands                              | result                       |
/// |---------------------------------|---------------------------------------|------------------------------|
/// | `product(c, a, b)`              | c M x N, a M x K, b K x N             | c = a b                      |
/// | `product_transposed(c, a, b)`   | c M x N, a M x K, b N x K             | c = a b^T                    |
/// | `product_left_transposed(c,a,b)`| c M x N, a K x M, b K x N             | c = a^T b                    |
/// | `attend<W, DK, DV>(...)`        | Q, K, V column windows, a mask        | out += softmax(Q K^T / s) V  |
///
/// Example:
/// \code
///   float c[2][2]{}; const float a[2][1]{{1}, {2}}, b[1][2]{{3, 4}};
///   ctattn::detail::scalar::product(c, a, b);   // {{3, 4}, {6, 8}}
/// \endcode

#include <cstddef>
#include <limits>

#include "ctattn/kernels/softmax_row.hpp"

namespace ctattn::detail {

/// Where one head's columns sit inside the projected Q, K and V, and where its output goes. The head's widths
/// (d_k, d_v) are template arguments of the kernel.
struct head_columns {
  std::size_t query_offset;   // first column of this head in Q
  std::size_t key_offset;     // first column of its key/value head in K
  std::size_t value_offset;   // first column of its key/value head in V
  std::size_t output_offset;  // first column of its output
};

// The scores of query i against the keys of its range: dot(j) / scale, plus the mask's bias, or -inf for a key
// the mask hides. The exact kernels (constant-evaluated and scalar) score through here, so they apply a mask
// identically.
template <typename T, typename Mask, typename Range, typename Dot>
constexpr void score_row(const Mask& mask, std::size_t i, const Range& range, T scale, T* scores,
                         const Dot& dot) noexcept {
  for (std::size_t j = range.begin; j < range.end; ++j) {
    if constexpr (Mask::checks_each_key) {
      if (!mask.allowed(i, j)) {
        scores[j] = -std::numeric_limits<T>::infinity();
        continue;
      }
    }
    T score = dot(j) / scale;
    if constexpr (Mask::adds_bias) score += mask.template bias<T>(i, j);
    scores[j] = score;
  }
}

namespace scalar {

/// c = a b, each element summed over k = 0, 1, ..., K-1 from +0.
// Rationale: the i-k-j order streams rows of b and of c, so the innermost loop is independent across j: compilers
// vectorize it without reordering any sum, and each element still gets the textbook order's bits.
template <typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product(T (&c)[M][N], const T (&a)[M][K], const T (&b)[K][N]) noexcept {
  for (std::size_t i = 0; i < M; ++i) {
    T(&c_row)[N] = c[i];
    for (std::size_t j = 0; j < N; ++j) c_row[j] = T{0};
    for (std::size_t k = 0; k < K; ++k) {
      const T a_ik = a[i][k];
      const T(&b_row)[N] = b[k];
      for (std::size_t j = 0; j < N; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
}

/// c = a b^T for b given as N rows of K (nn.Linear's layout, or keys): dot products over contiguous rows.
template <typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product_transposed(T (&c)[M][N], const T (&a)[M][K], const T (&b)[N][K]) noexcept {
  // Rationale: four rows of b at a time, each dot product still summed in order (the same bits): four
  // independent chains of additions instead of one.
  for (std::size_t i = 0; i < M; ++i) {
    const T(&a_row)[K] = a[i];
    std::size_t j = 0;
    for (; j + 4 <= N; j += 4) {
      T acc0{0}, acc1{0}, acc2{0}, acc3{0};
      for (std::size_t k = 0; k < K; ++k) {
        const T a_ik = a_row[k];
        acc0 += a_ik * b[j][k];
        acc1 += a_ik * b[j + 1][k];
        acc2 += a_ik * b[j + 2][k];
        acc3 += a_ik * b[j + 3][k];
      }
      c[i][j] = acc0;
      c[i][j + 1] = acc1;
      c[i][j + 2] = acc2;
      c[i][j + 3] = acc3;
    }
    for (; j < N; ++j) {
      const T(&b_row)[K] = b[j];
      T acc{0};
      for (std::size_t k = 0; k < K; ++k) acc += a_row[k] * b_row[k];
      c[i][j] = acc;
    }
  }
}

/// c = a^T b for a given as K rows of M: c(m, n) = sum over k = 0, 1, ... of a(k, m) b(k, n), from +0; with
/// Accumulate, the sums go on from c's values (so a^T b taken in blocks of rows adds in the same order).
template <bool Accumulate = false, typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product_left_transposed(T (&c)[M][N], const T (&a)[K][M], const T (&b)[K][N]) noexcept {
  if constexpr (!Accumulate) {
    for (std::size_t m = 0; m < M; ++m) {
      for (std::size_t n = 0; n < N; ++n) c[m][n] = T{0};
    }
  }
  for (std::size_t k = 0; k < K; ++k) {
    const T(&b_row)[N] = b[k];
    for (std::size_t m = 0; m < M; ++m) {
      const T a_km = a[k][m];
      T(&c_row)[N] = c[m];
      for (std::size_t n = 0; n < N; ++n) c_row[n] += a_km * b_row[n];
    }
  }
}

/// Attention of the queries [row_begin, row_end) of one head: for each, the scores against the keys its mask's
/// range allows, their softmax, and the weighted sum of value rows added to the output's columns
/// [output_offset, output_offset + DV), which must hold +0. With KeepWeights, the weights are written too.
// Rationale: one query row at a time; only the keys in the mask's range are visited (a sliding window costs
// O(r N)), and a value row whose weight is 0 is never read. Heads are column windows of the projected matrices,
// so multi-head attention runs this with no copies.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale, std::size_t row_begin = 0,
                      std::size_t row_end = Q::rows) noexcept {
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  const std::size_t q_begin = columns.query_offset;
  const std::size_t k_begin = columns.key_offset;
  const std::size_t v_begin = columns.value_offset;
  const std::size_t o_begin = columns.output_offset;
  T scores[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const T(&q_row)[Q::cols] = q.elements[i];
    T(&out_row)[Out::cols] = out.elements[i];
    const auto range = mask.keys(i, n_q, n_kv);
    // Rationale: four keys' dot products at a time, each still summed over d_k in order (the same bits as one at a
    // time): a lone sum is one chain of dependent additions, four independent chains keep the core busy. The
    // lambda's names are not the short ones users pick for globals (GCC's -Wshadow reports those); see
    // tests/static/user_names_test.cpp.
    std::size_t key = range.begin;
    for (; key + 4 <= range.end; key += 4) {
      const T(&k0)[K::cols] = k.elements[key];
      const T(&k1)[K::cols] = k.elements[key + 1];
      const T(&k2)[K::cols] = k.elements[key + 2];
      const T(&k3)[K::cols] = k.elements[key + 3];
      T d0{0}, d1{0}, d2{0}, d3{0};
      for (std::size_t column = 0; column < DK; ++column) {
        const T query = q_row[q_begin + column];
        d0 += query * k0[k_begin + column];
        d1 += query * k1[k_begin + column];
        d2 += query * k2[k_begin + column];
        d3 += query * k3[k_begin + column];
      }
      scores[key] = d0;
      scores[key + 1] = d1;
      scores[key + 2] = d2;
      scores[key + 3] = d3;
    }
    for (; key < range.end; ++key) {
      const T(&k_row)[K::cols] = k.elements[key];
      T key_dot{0};
      for (std::size_t column = 0; column < DK; ++column) key_dot += q_row[q_begin + column] * k_row[k_begin + column];
      scores[key] = key_dot;
    }
    // The dot products are in `scores`; score_row reads each before it writes the score in its place.
    score_row(mask, i, range, scale, scores, [&](std::size_t key_index) { return scores[key_index]; });
    softmax_row(scores, probabilities, range.begin, range.end);
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      const T(&v_row)[V::cols] = v.elements[j];
      for (std::size_t c = 0; c < DV; ++c) out_row[o_begin + c] += p * v_row[v_begin + c];
    }
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

}  // namespace scalar
}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_SCALAR_HPP
