// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ACTIVATION_HPP
#define CTATTN_KERNELS_ACTIVATION_HPP

/// \file
/// The element-wise activations and the row normalizations of the layers tier, in their exact form: what constant
/// evaluation and the exact arithmetic compute (kernels/dispatch.hpp chooses; the fast forms are in
/// kernels/detail/simd.hpp).
///
/// | function                              | computes, per element or per row of n                          |
/// |---------------------------------------|----------------------------------------------------------------|
/// | `activate<activation::relu>(x)`       | max(x, 0)                                                      |
/// | `activate<activation::gelu>(x)`       | x Phi(x) = x (1 + erf(x / sqrt 2)) / 2 (PyTorch's exact form)  |
/// | `activate<activation::gelu_tanh>(x)`  | x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2                |
/// | `activate<activation::silu>(x)`       | x / (1 + e^-x)                                                 |
/// | `layer_norm_row<Affine, Bias>(...)`   | (x - mean) / sqrt(var + eps) (* w) (+ b), var biased           |
/// | `rms_norm_row<Affine>(...)`           | x / sqrt(mean(x^2) + eps) (* w)                                |
///
/// Example: `static_assert(ctattn::detail::kernels::activate<ctattn::detail::kernels::activation::relu>(-2.0f) == 0);`

#include <cstddef>

#include "ctattn/math/erf.hpp"
#include "ctattn/math/exp.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/math/tanh.hpp"

namespace ctattn::detail::kernels {

/// The activations the layers tier offers.
enum class activation { relu, gelu, gelu_tanh, silu };

/// The activation F of one element, exactly.
template <activation F, typename T>
[[nodiscard]] constexpr T activate(T x) noexcept {
  if constexpr (F == activation::relu) {
    return x < T(0) ? T(0) : x;
  } else if constexpr (F == activation::gelu) {
    constexpr T inverse_sqrt2 = T(0.70710678118654752440L);
    return T(0.5) * x * (T(1) + math::erf(x * inverse_sqrt2));
  } else if constexpr (F == activation::gelu_tanh) {
    constexpr T sqrt_2_over_pi = T(0.79788456080286535588L);
    constexpr T cubic = T(0.044715L);
    return T(0.5) * x * (T(1) + math::tanh(sqrt_2_over_pi * (x + cubic * x * x * x)));
  } else {
    return x / (T(1) + math::exp(-x));
  }
}

/// y[0, n) = the activation F of x[0, n), exactly.
template <activation F, typename T>
constexpr void activate_all(const T* x, T* y, std::size_t n) noexcept {
  for (std::size_t j = 0; j < n; ++j) y[j] = activate<F>(x[j]);
}

/// One row of LayerNorm, exactly: the row as offsets from its first entry (exact for entries near it, so a row far
/// from zero keeps its digits), their mean, the mean of squared deviations (two passes, in column order), then
/// y = (offset - mean) / sqrt(var + eps), times the weight (`Affine`), plus the bias (`Bias`).
template <bool Affine, bool Bias, typename T, std::size_t N>
constexpr void layer_norm_row(const T (&x)[N], T (&y)[N], const T* weight, const T* bias, T eps) noexcept {
  const T shift = x[0];
  T offsets[N]{};
  T sum{0};
  for (std::size_t j = 0; j < N; ++j) {
    offsets[j] = x[j] - shift;
    sum += offsets[j];
  }
  const T mean = sum / static_cast<T>(N);
  T squares{0};
  for (std::size_t j = 0; j < N; ++j) {
    const T d = offsets[j] - mean;
    squares += d * d;
  }
  const T scale = T(1) / math::sqrt(squares / static_cast<T>(N) + eps);
  for (std::size_t j = 0; j < N; ++j) {
    T value = (offsets[j] - mean) * scale;
    if constexpr (Affine) value = value * weight[j];
    if constexpr (Bias) value = value + bias[j];
    y[j] = value;
  }
}

/// One row of RMSNorm, exactly: y = x / sqrt(mean(x^2) + eps), times the weight (`Affine`).
template <bool Affine, typename T, std::size_t N>
constexpr void rms_norm_row(const T (&x)[N], T (&y)[N], const T* weight, T eps) noexcept {
  T squares{0};
  for (std::size_t j = 0; j < N; ++j) squares += x[j] * x[j];
  const T scale = T(1) / math::sqrt(squares / static_cast<T>(N) + eps);
  for (std::size_t j = 0; j < N; ++j) {
    T value = x[j] * scale;
    if constexpr (Affine) value = value * weight[j];
    y[j] = value;
  }
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_ACTIVATION_HPP
