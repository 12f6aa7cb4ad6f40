// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DISPATCH_HPP
#define CTATTN_KERNELS_DISPATCH_HPP

/// \file
/// The kernel tier's one interface: the few primitives every operation computes with, and the one place that
/// decides how each is computed.
///
/// | primitive                                | operands                          | result                       |
/// |------------------------------------------|-----------------------------------|------------------------------|
/// | `kernels::product<A>(c, a, b)`           | c M x N, a M x K, b K x N         | c = a b                      |
/// | `kernels::product_transposed<A>(c, a, b)`| c M x N, a M x K, b N x K         | c = a b^T                    |
/// | `kernels::product_left_transposed<A>(..)`| c M x N, a K x M, b K x N         | c = a^T b (or c += a^T b)    |
/// | `kernels::softmax_row<A>(x, w, b, e)`    | x, w: arrays; [b, e) a range      | w[b, e) = softmax(x[b, e))   |
/// | `kernels::attend<A, W, DK, DV>(...)`     | Q, K, V column windows, a mask    | out += softmax(Q K^T / s) V  |
/// | `kernels::activate<A, F>(x, y)`          | x, y: R x C arrays                | y = F(x) element by element  |
/// | `kernels::layer_norm_rows<A, W, B>(...)` | x, y: R x C arrays; weight, bias  | each row layer-normalized    |
/// | `kernels::rms_norm_rows<A, W>(...)`      | x, y: R x C arrays; weight        | each row RMS-normalized      |
///
/// The choice, made here and nowhere else:
///   1. constant evaluation: kernels/constant.hpp (the exact arithmetic in the evaluators' fast form);
///   2. run time, exact arithmetic, or double, or no SIMD backend: kernels/scalar.hpp (the same bits);
///   3. run time, fast arithmetic on float: the build's SIMD backend through kernels/detail/simd.hpp.
/// `A` is a `ctattn::arithmetic`, by default `ctattn::default_arithmetic` (kernels/backend.hpp).
///
/// Example:
/// \code
///   float c[2][2]; const float a[2][2]{{1, 2}, {3, 4}};
///   ctattn::detail::kernels::product(c, a, a);   // {{7, 10}, {15, 22}}
/// \endcode

#include <cstddef>
#include <type_traits>

#include "ctattn/kernels/activation.hpp"
#include "ctattn/kernels/backend.hpp"
#include "ctattn/kernels/constant.hpp"
#include "ctattn/kernels/detail/simd.hpp"
#include "ctattn/kernels/scalar.hpp"
#include "ctattn/kernels/softmax_row.hpp"

namespace ctattn::detail::kernels {

/// c = a b.
template <arithmetic A = default_arithmetic, typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product(T (&c)[M][N], const T (&a)[M][K], const T (&b)[K][N]) noexcept {
  if (std::is_constant_evaluated()) {
    unrolled_product(c, a, b);
  } else if constexpr (runs_simd<A, T>) {
    simd::product<simd_ops, M, N, false>(&a[0][0], K, 1, &b[0][0], N, &c[0][0], N, K);
  } else {
    scalar::product(c, a, b);
  }
}

/// c = a b^T, b given as N rows of K.
template <arithmetic A = default_arithmetic, typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product_transposed(T (&c)[M][N], const T (&a)[M][K], const T (&b)[N][K]) noexcept {
  if (std::is_constant_evaluated()) {
    unrolled_product_transposed(c, a, b);
  } else if constexpr (runs_simd<A, T>) {
    simd::product_transposed<simd_ops, M, N, K>(&a[0][0], K, &b[0][0], K, &c[0][0], N);
  } else {
    scalar::product_transposed(c, a, b);
  }
}

/// c = a^T b, a given as K rows of M; with Accumulate, c += a^T b.
template <arithmetic A = default_arithmetic, bool Accumulate = false, typename T, std::size_t M, std::size_t K,
          std::size_t N>
constexpr void product_left_transposed(T (&c)[M][N], const T (&a)[K][M], const T (&b)[K][N]) noexcept {
  if constexpr (runs_simd<A, T>) {
    if (!std::is_constant_evaluated()) {
      simd::product<simd_ops, M, N, Accumulate>(&a[0][0], 1, M, &b[0][0], N, &c[0][0], N, K);
      return;
    }
  }
  scalar::product_left_transposed<Accumulate>(c, a, b);
}

/// weights[begin, end) = the softmax of values[begin, end) (kernels/softmax_row.hpp gives its meaning).
template <arithmetic A = default_arithmetic, typename T>
constexpr void softmax_row(const T* values, T* weights, std::size_t begin, std::size_t end) noexcept {
  if constexpr (runs_simd<A, T>) {
    if (!std::is_constant_evaluated()) {
      simd::softmax_row<simd_ops>(values, weights, begin, end);
      return;
    }
  }
  detail::softmax_row(values, weights, begin, end);
}

/// Attention of one head (kernels/scalar.hpp's `attend` gives the contract): out's columns
/// [output_offset, output_offset + DV) must hold +0 and receive softmax(Q K^T / scale + mask) V.
template <arithmetic A, bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V,
          typename Out, typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale) noexcept {
  if (std::is_constant_evaluated()) {
    constant::attend<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
  } else if constexpr (runs_simd<A, typename Q::value_type>) {
    float* weight_storage = nullptr;
    if constexpr (KeepWeights) weight_storage = &weights->elements[0][0];
    // A row whose scores hold NaN or +inf is recomputed by the exact kernel, which gives those their meaning.
    // Rationale: no short names inside the lambda: GCC's -Wshadow reports a lambda's declarations against user
    // globals of the same name (tests/static/user_names_test.cpp declares c, i, j, ...).
    const auto redo_row = [&](std::size_t row) {
      for (std::size_t column = 0; column < DV; ++column) out.elements[row][columns.output_offset + column] = 0.0f;
      scalar::attend<false, DK, DV>(q, k, v, mask, out, weights, columns, scale, row, row + 1);
    };
    simd::attend<simd_ops, KeepWeights, DK, DV, Q::rows, K::rows>(
        &q.elements[0][0] + columns.query_offset, Q::cols, &k.elements[0][0] + columns.key_offset, K::cols,
        &v.elements[0][0] + columns.value_offset, V::cols, mask, &out.elements[0][0] + columns.output_offset, Out::cols,
        weight_storage, scale, redo_row);
  } else {
    scalar::attend<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
  }
}

/// y = the activation F of x, element by element (kernels/activation.hpp). Fast arithmetic hands a block holding an
/// infinite or NaN entry to the exact loop.
template <arithmetic A, activation F, typename T, std::size_t R, std::size_t C>
constexpr void activate(const T (&x)[R][C], T (&y)[R][C]) noexcept {
  if constexpr (runs_simd<A, T>) {
    if (!std::is_constant_evaluated() && simd::activate_all<simd_ops, F>(&x[0][0], &y[0][0], R * C)) return;
  }
  for (std::size_t i = 0; i < R; ++i) activate_all<F>(x[i], y[i], C);
}

/// Each row of x layer-normalized into y (kernels/activation.hpp): times `weight` when `Affine`, plus `bias` when
/// `Bias` (1 x C each; unused otherwise). Fast arithmetic hands a row whose sums are not finite to the exact loop.
template <arithmetic A, bool Affine, bool Bias, typename T, std::size_t R, std::size_t C>
constexpr void layer_norm_rows(const T (&x)[R][C], T (&y)[R][C], const T* weight, const T* bias, T eps) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    if constexpr (runs_simd<A, T>) {
      if (!std::is_constant_evaluated()) {
        if (simd::layer_norm_row<simd_ops, Affine, Bias>(x[i], y[i], C, weight, bias, eps)) continue;
      }
    }
    layer_norm_row<Affine, Bias>(x[i], y[i], weight, bias, eps);
  }
}

/// Each row of x RMS-normalized into y, times `weight` when `Affine`; as `layer_norm_rows`.
template <arithmetic A, bool Affine, typename T, std::size_t R, std::size_t C>
constexpr void rms_norm_rows(const T (&x)[R][C], T (&y)[R][C], const T* weight, T eps) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    if constexpr (runs_simd<A, T>) {
      if (!std::is_constant_evaluated() && simd::rms_norm_row<simd_ops, Affine>(x[i], y[i], C, weight, eps)) continue;
    }
    rms_norm_row<Affine>(x[i], y[i], weight, eps);
  }
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DISPATCH_HPP
