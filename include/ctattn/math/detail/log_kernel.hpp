// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_LOG_KERNEL_HPP
#define CTATTN_MATH_DETAIL_LOG_KERNEL_HPP

/// \file
/// The reduction and polynomial behind ctattn::math::log.

#include "ctattn/math/detail/exp_kernel.hpp"
#include "ctattn/math/detail/fp.hpp"

namespace ctattn::math::detail {

template <Scalar T>
struct log_constants;

// Rationale (both types): x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f / (2 + f), so
// log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)). R(z) = z P(z), P a Chebyshev fit of
// (2 atanh(s)/s - 2) / s^2 for s^2 <= 0.0295 (|s| <= 0.1716), coefficients rounded to the type
// (generate_math_reference.py --coefficients: 2^-30.1 for float at degree 2, 2^-59.1 for double at degree
// 6, weighted by s^3, the size of their contribution). k ln2 uses the Cody-Waite split of exp (k * ln2_hi is
// exact for every k that occurs, |k| <= 152 for float, <= 1077 for double).
template <>
struct log_constants<float> {
  static constexpr float sqrt2 = 0x1.6a09e6p+0f;
  static constexpr float poly[] = {0x1.55555cp-1f, 0x1.997c22p-2f, 0x1.2ee8c8p-2f};
};

template <>
struct log_constants<double> {
  static constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
  static constexpr double poly[] = {0x1.5555555555558p-1, 0x1.9999999995273p-2, 0x1.2492492dfd86cp-2,
                                    0x1.c71c62d5e53e0p-3, 0x1.7462b91b8df65p-3, 0x1.39fdcceb4bb45p-3,
                                    0x1.2b5f68a50d903p-3};
};

template <Scalar T>
constexpr T log(T x) noexcept {
  using fmt = format<T>;
  using e = exp_constants<T>;
  if (is_nan(x)) return x;
  if (x < T(0)) return quiet_nan<T>();
  if (x == T(0)) return -infinity<T>();
  if (x == infinity<T>()) return x;
  int k = 0;
  if (x < std::numeric_limits<T>::min()) {  // subnormal: scale into the normal range (exact)
    x = x * pow2<T>(fmt::mantissa_bits + 2);
    k = -(fmt::mantissa_bits + 2);
  }
  const bits_t<T> b = to_bits(x);
  constexpr bits_t<T> mantissa_mask = (bits_t<T>{1} << fmt::mantissa_bits) - 1;
  k += static_cast<int>(b >> fmt::mantissa_bits) - fmt::bias;
  T m = from_bits<T>((b & mantissa_mask) | (static_cast<bits_t<T>>(fmt::bias) << fmt::mantissa_bits));
  if (m >= log_constants<T>::sqrt2) {
    m = m * T(0.5);
    ++k;
  }
  const T f = m - T(1);
  const T s = f / (T(2) + f);
  const T z = s * s;
  const T half_f2 = T(0.5) * f * f;
  const T r = z * horner(log_constants<T>::poly, z);
  const T kf = static_cast<T>(k);
  // Rationale: the order of the additions keeps the large terms (k ln2_hi, f) last, so their sum is rounded
  // once and the small terms' errors stay far below an ulp.
  return kf * e::ln2_hi - ((half_f2 - (s * (half_f2 + r) + kf * e::ln2_lo)) - f);
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_LOG_KERNEL_HPP
