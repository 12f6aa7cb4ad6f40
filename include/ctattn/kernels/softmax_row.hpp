// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_SOFTMAX_ROW_HPP
#define CTATTN_KERNELS_SOFTMAX_ROW_HPP

#include <cstddef>
#include <limits>

#include "ctattn/math/exp.hpp"

namespace ctattn::detail {

/// The softmax of `values[begin, end)` written to `weights[begin, end)`; the entries outside that range are
/// left alone. The rules, shared by `softmax_rows` and every attention kernel:
///   - -inf entries (masked) get weight 0 and are never passed to exp;
///   - a row with no entry above -inf (fully masked, or empty) gets all zeros, never NaN;
///   - +inf entries share the weight equally (the limit), every other entry gets 0;
///   - a NaN anywhere makes the whole row NaN;
///   - otherwise w_j = exp(x_j - max) / sum_k exp(x_k - max): subtracting the row maximum keeps every
///     exponent <= 0, so no row overflows, and the largest entry contributes exactly 1 to the sum.
// Rationale: one function for every caller keeps compile-time and run-time results, and every mask kind,
// on the same arithmetic. It takes raw arrays so that the kernels can hand it a row buffer.
template <typename T>
constexpr void softmax_row(const T* values, T* weights, std::size_t begin, std::size_t end) noexcept {
  constexpr T infinity = std::numeric_limits<T>::infinity();
  T largest = -infinity;
  std::size_t infinite = 0;
  for (std::size_t j = begin; j < end; ++j) {
    const T x = values[j];
    if (x != x) {  // NaN
      for (std::size_t m = begin; m < end; ++m) weights[m] = std::numeric_limits<T>::quiet_NaN();
      return;
    }
    if (x == infinity) ++infinite;
    if (x > largest) largest = x;
  }
  if (largest == -infinity) {
    for (std::size_t j = begin; j < end; ++j) weights[j] = T{0};
    return;
  }
  if (infinite > 0) {
    const T share = T{1} / static_cast<T>(infinite);
    for (std::size_t j = begin; j < end; ++j) weights[j] = values[j] == infinity ? share : T{0};
    return;
  }
  T total{0};
  for (std::size_t j = begin; j < end; ++j) {
    const T e = values[j] == -infinity ? T{0} : math::exp(values[j] - largest);
    weights[j] = e;
    total += e;
  }
  for (std::size_t j = begin; j < end; ++j) weights[j] = weights[j] / total;
}

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_SOFTMAX_ROW_HPP
