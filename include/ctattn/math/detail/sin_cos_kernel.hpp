// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_SIN_COS_KERNEL_HPP
#define CTATTN_MATH_DETAIL_SIN_COS_KERNEL_HPP

/// \file
/// sin and cos on [-pi/4, pi/4] for an argument given as hi + lo, and the quadrant dispatch.

#include "ctattn/math/detail/fp.hpp"
#include "ctattn/math/detail/trig_reduction.hpp"

namespace ctattn::math::detail {

template <Scalar T>
struct sin_cos_constants;

// Rationale: sin t = t + t^3 S(t^2) and cos t = 1 - t^2/2 + t^4 C(t^2) on |t| <= pi/4; S and C are Chebyshev
// fits of (sin t - t)/t^3 and (cos t - 1 + t^2/2)/t^4 in z = t^2, coefficients rounded to the type
// (generate_math_reference.py --coefficients: sin 2^-28.3 float degree 3, 2^-57.3 double degree 6; cos 2^-31.0
// float degree 3, 2^-60.0 double degree 5, each relative to the result). Below `tiny` sin t rounds to t and
// cos t to 1 (t^2/6 and t^2/2 are under half an ulp).
template <>
struct sin_cos_constants<float> {
  static constexpr float tiny = 0x1p-12f;
  static constexpr float pio4 = 0x1.921fb6p-1f;
  static constexpr float sin_poly[] = {-0x1.555556p-3f, 0x1.11110ep-7f, -0x1.a013a4p-13f, 0x1.6dbcfcp-19f};
  static constexpr float cos_poly[] = {0x1.555556p-5f, -0x1.6c16cp-10f, 0x1.a015c2p-16f, -0x1.25239ap-22f};
};

template <>
struct sin_cos_constants<double> {
  static constexpr double tiny = 0x1p-27;
  static constexpr double pio4 = 0x1.921fb54442d18p-1;
  static constexpr double sin_poly[] = {-0x1.5555555555555p-3, 0x1.111111111111p-7,    -0x1.a01a01a01992fp-13,
                                        0x1.71de3a545f836p-19, -0x1.ae645410e937bp-26, 0x1.61217d9252c03p-33,
                                        -0x1.ab16f5caa198ap-41};
  static constexpr double cos_poly[] = {0x1.5555555555555p-5,   -0x1.6c16c16c16963p-10, 0x1.a01a019f4ddfdp-16,
                                        -0x1.27e4fa16cc2d1p-22, 0x1.1eeb67d026ec6p-29,  -0x1.907cd8ff5ede7p-37};
};

/// sin(hi + lo) for |hi| <= pi/4 (plus rounding), |lo| <= ulp(hi).
template <Scalar T>
constexpr T sin_kernel(T hi, T lo) noexcept {
  const T z = hi * hi;
  // sin(hi + lo) = sin(hi) + lo cos(hi) ~ hi + (hi z S(z) + lo (1 - z/2))
  return hi + (hi * z * horner(sin_cos_constants<T>::sin_poly, z) + (lo - T(0.5) * z * lo));
}

/// cos(hi + lo) for |hi| <= pi/4 (plus rounding), |lo| <= ulp(hi).
template <Scalar T>
constexpr T cos_kernel(T hi, T lo) noexcept {
  // Rationale: z = hi^2 exactly (as a two-fold value), because the rounding of hi^2/2 alone would cost up to a
  // quarter of an ulp of the result near |t| = pi/4; 1 - z/2 is then rounded once, its error recovered.
  const twofold<T> z = two_product(hi, hi);
  const T half_hi = T(0.5) * z.hi;
  const T w = T(1) - half_hi;
  const T w_err = (T(1) - w) - half_hi;  // exact (|half_hi| <= 1)
  const T tail = z.hi * z.hi * horner(sin_cos_constants<T>::cos_poly, z.hi) - (T(0.5) * z.lo + hi * lo);
  return w + (w_err + tail);
}

enum class trig_function { sin, cos };

template <trig_function F, Scalar T>
constexpr T sin_cos(T x) noexcept {
  using c = sin_cos_constants<T>;
  if (is_nan(x)) return x;
  const T ax = abs(x);
  if (ax == infinity<T>()) return quiet_nan<T>();
  if (ax < c::tiny) {
    if constexpr (F == trig_function::sin) return x;  // also keeps -0 and subnormals
    return T(1);
  }
  if (ax <= c::pio4) {
    if constexpr (F == trig_function::sin) return sin_kernel(x, T(0));
    return cos_kernel(x, T(0));
  }
  const reduced_argument<T> r = reduce_pio2(ax);
  // sin(-x) = -sin(x), cos(-x) = cos(x); sin and cos of (q + f) pi/2 by quadrant
  int q = r.quadrant;
  bool negate = false;
  if constexpr (F == trig_function::sin) {
    negate = sign_bit(x) != (q >= 2);
  } else {
    negate = q == 1 || q == 2;
    ++q;  // cos(t) = sin(t + pi/2)
  }
  const T v = (q & 1) != 0 ? cos_kernel(r.hi, r.lo) : sin_kernel(r.hi, r.lo);
  return negate ? -v : v;
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_SIN_COS_KERNEL_HPP
