// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_SOFTMAX_HPP
#define CTATTN_ATTENTION_SOFTMAX_HPP

#include <cstddef>
#include <limits>

#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/math/exp.hpp"
#include "ctattn/math/log.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// The softmax of every row: w(i, j) = exp(x(i, j) - max_k x(i, k)) / sum_k exp(x(i, k) - max_k x(i, k)).
///
/// | operand | shape |
/// |---------|-------|
/// | `x`     | M x N |
/// | result  | M x N, each row summing to 1 (or all zeros) |
///
/// Numerically stable: rows like [1000, 1001, 999] or [88, 89, 90, 100] in float give the exact softmax
/// rounded, not inf or NaN. Edges: -inf entries (masked) get weight 0; a row whose entries are all -inf gets
/// zeros (ctattn's documented value for a fully masked row; PyTorch gives NaN there); +inf entries share the
/// weight equally; a NaN makes the whole row NaN. At run time on float the SIMD backend computes it (vector exp,
/// within docs/kernels.md's bound) unless the build defines `CTATTN_EXACT_ARITHMETIC=1`.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> x{{{1000, 1001, 999}}};
///   constexpr auto w = ctattn::softmax_rows(x);   // {0.2447, 0.6652, 0.0900}
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> softmax_rows(const basic_matrix<T, M, N>& x) noexcept {
  basic_matrix<T, M, N> weights{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    detail::kernels::softmax_row(x.elements[i], weights.elements[i], 0, basic_matrix<T, M, N>::cols);
  }
  return weights;
}

/// log(sum_j exp(x(i, j))) of every row, the log of the softmax's normalizer (log-softmax, cross-entropy, the
/// merging of attention computed in blocks): torch.logsumexp(x, dim=-1, keepdim=True).
///
/// | operand | shape |
/// |---------|-------|
/// | `x`     | M x N |
/// | result  | M x 1 |
///
/// Computed stably as m + log(sum_j exp(x(i, j) - m)), m the row's largest entry, the sum taken in column order:
/// [1000, 1001, 999] gives 1001.4076, not inf. Edges: a row of -inf gives -inf (log 0); a +inf entry gives +inf;
/// a NaN gives NaN.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> x{{{1000, 1001, 999}}};
///   constexpr auto lse = ctattn::logsumexp_rows(x);   // {{1001.4076}}
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> logsumexp_rows(const basic_matrix<T, M, N>& x) noexcept {
  using input = basic_matrix<T, M, N>;
  constexpr T infinity = std::numeric_limits<T>::infinity();
  basic_matrix<T, M, std::size_t{1}> result{};
  for (std::size_t i = 0; i < input::rows; ++i) {
    T largest = x.elements[i][0];
    bool not_a_number = false;
    for (std::size_t j = 0; j < input::cols; ++j) {
      const T value = x.elements[i][j];
      if (value != value) not_a_number = true;
      if (value > largest) largest = value;
    }
    if (not_a_number) {
      result.elements[i][0] = std::numeric_limits<T>::quiet_NaN();
    } else if (largest == -infinity || largest == infinity) {
      result.elements[i][0] = largest;
    } else {
      T sum{0};
      for (std::size_t j = 0; j < input::cols; ++j) {
        const T value = x.elements[i][j];
        if (value != -infinity) sum += math::exp(value - largest);
      }
      result.elements[i][0] = largest + math::log(sum);
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_SOFTMAX_HPP
