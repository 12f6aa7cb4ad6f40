// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_ERF_KERNEL_HPP
#define CTATTN_MATH_DETAIL_ERF_KERNEL_HPP

/// \file
/// The error function on three intervals: a polynomial in x^2 near 0, a polynomial around erf(1), and
/// 1 - erfc(x) with erfc(x) = e^(-x^2) F(1/x) / x beyond.

#include "ctattn/math/detail/exp_kernel.hpp"
#include "ctattn/math/detail/fp.hpp"

namespace ctattn::math::detail {

template <Scalar T>
struct erf_constants;

// Rationale: the coefficients are Chebyshev fits rounded to the type (generate_math_reference.py
// --coefficients prints each fit and its error after rounding):
// - |x| < 0.84375: erf x = x + x R(x^2), R(z) = erf(x)/x - 1 (2^-27.4 float degree 6, 2^-56.1 double degree 11).
//   Below `tiny` R is its constant term, and x is scaled up first so that a subnormal result is rounded once.
// - 0.84375 <= |x| < 1.25: erf x = erx + P(|x| - 1), erx = erf(1) rounded to the type, P fitted to
//   erf(1 + s) - erx, relative error 2^-28.2 float degree 7, 2^-57.4 double degree 14.
// - 1.25 <= |x| < one: erfc x = e^(-x^2) F(1/x) / x, F(u) = erfc(1/u) e^(1/u^2) / u, fitted in u - centre
//   (relative error 2^-26.5 float, degree 9 on one interval; 2^-55.9 and 2^-54.3 double, degree 16 on x in
//   [1.25, 2.5) and [2.5, one)). x^2 is split exactly (two-product) so that e^(-x^2) does not inherit the
//   rounding of x^2, which is magnified by x^2 itself.
// - |x| >= one (the smallest x whose correctly rounded erf is 1): +-1.
template <>
struct erf_constants<float> {
  static constexpr float tiny = 0x1p-14f;
  static constexpr float small_limit = 0.84375f;
  static constexpr float mid_limit = 1.25f;
  static constexpr float one = 0x1.f5a88ap+1f;  // 3.9192
  static constexpr float small_poly[] = {0x1.06eba8p-3f, -0x1.812746p-2f,  0x1.ce2eb6p-4f, -0x1.b81e9p-6f,
                                         0x1.5572acp-8f, -0x1.b0c752p-11f, 0x1.74beecp-14f};
  static constexpr float erx = 0x1.af767ap-1f;
  static constexpr float mid_poly[] = {0x1.cf1306p-27f, 0x1.a911fp-2f,   -0x1.a911eep-2f, 0x1.1b60ap-3f,
                                       0x1.1b5f86p-4f,  -0x1.1b00b8p-4f, 0x1.28a552p-8f,  0x1.adf8fap-7f};
  static constexpr float tail_split = 3.0e38f;  // one interval for float
  static constexpr float tail_centre_near = 0x1.0e1e8ep-1f;
  static constexpr float tail_poly_near[] = {0x1.0326b8p-1f,  -0x1.5a0c74p-3f, -0x1.beedf4p-6f, 0x1.b784a8p-4f,
                                             -0x1.a3dc1ep-4f, 0x1.86dc6cp-5f,  0x1.77aeb8p-6f,  -0x1.4ae26ap-4f,
                                             0x1.a361f4p-4f,  -0x1.0b99p-4f};
  static constexpr float tail_centre_far = tail_centre_near;
  static constexpr const float (&tail_poly_far)[10] = tail_poly_near;
};

template <>
struct erf_constants<double> {
  static constexpr double tiny = 0x1p-28;
  static constexpr double small_limit = 0.84375;
  static constexpr double mid_limit = 1.25;
  static constexpr double one = 0x1.7afb48dc96627p+2;  // 5.9215
  static constexpr double small_poly[] = {0x1.06eba8214db69p-3,   -0x1.812746b0379e6p-2,  0x1.ce2f21a042accp-4,
                                          -0x1.b82ce31281975p-6,  0x1.565bcd0ce826fp-8,   -0x1.c02db39f8dab6p-11,
                                          0x1.f9a3179a72999p-14,  -0x1.f4d0bf8c2a865p-17, 0x1.b9c9d17cf321fp-20,
                                          -0x1.5e1a435c34b45p-23, 0x1.e8104e5048f8ap-27,  -0x1.e8026404074f9p-31};
  static constexpr double erx = 0x1.af767a741088bp-1;
  static constexpr double mid_poly[] = {-0x1.c99a6bef27697p-56, 0x1.a911f096fbc26p-2,  -0x1.a911f096fbc25p-2,
                                        0x1.1b614b0f527f0p-3,   0x1.1b614b0f5266cp-4,  -0x1.1b614b0f4cc5fp-4,
                                        0x1.2e45a5663a0f0p-8,   0x1.f096fd59dac7ap-7,  -0x1.39114696e74a7p-8,
                                        -0x1.ee30af1146398p-10, 0x1.417655df98da9p-10, 0x1.666ba569cd698p-14,
                                        -0x1.a2ec14ff6578ep-13, 0x1.43b3789a9ac60p-16, 0x1.4160efc00cbc1p-16};
  static constexpr double tail_split = 2.5;
  static constexpr double tail_centre_near = 0x1.3333333333333p-1;
  static constexpr double tail_poly_near[] = {
      0x1.f9a9f95f6f1bdp-2, -0x1.5efce00ff7b38p-3, -0x1.caecf71ee67c4p-8, 0x1.4893856aee932p-4, -0x1.595e44b954196p-4,
      0x1.9fc00bab10726p-5, -0x1.44f82d83f71bap-8, -0x1.1afcff3c5586cp-5, 0x1.cf13a4c20d06bp-5, -0x1.d1268c7768529p-5,
      0x1.3110cdb78ab42p-5, -0x1.2bc2da570a724p-8, -0x1.039d7e9548e92p-5, 0x1.f91866cee6cd2p-5, -0x1.38d6d3e23b908p-4,
      0x1.07aac00053c7ep-4, -0x1.96286a163da45p-6};
  static constexpr double tail_centre_far = 0x1.234367f5713b6p-2;
  static constexpr double tail_poly_far[] = {
      0x1.165f1c8f67ddap-1,  -0x1.0ab5310d9e6a3p-3, -0x1.29cd2fba788c8p-3, 0x1.b3b05f279a99dp-3,  -0x1.164837ac101adp-4,
      -0x1.8875abf8ebbdfp-3, 0x1.79936ad26821fp-2,  -0x1.e250f34542c60p-3, -0x1.4079021e38a42p-2, 0x1.0e1cb4251260ap+0,
      -0x1.4fecdc3d9ce66p+0, 0x1.d50055005415fp-4,  0x1.8b7197416f4d4p+1,  -0x1.cc5f3e5f7e805p+2, 0x1.edd30a0dcebcep+2,
      0x1.8d4f37bf1df33p+2,  -0x1.06d18cc2dbb2fp+5};
};

template <Scalar T>
constexpr T erf(T x) noexcept {
  using c = erf_constants<T>;
  constexpr int up = format<T>::mantissa_bits + 2;
  if (is_nan(x)) return x;
  const T ax = abs(x);
  if (ax >= c::one) return sign_bit(x) ? T(-1) : T(1);
  if (ax < c::tiny) {
    const T y = x * pow2<T>(up);  // exact; keeps -0
    return (y + y * c::small_poly[0]) * pow2<T>(-up);
  }
  if (ax < c::small_limit) {
    const T z = x * x;
    return x + x * horner(c::small_poly, z);
  }
  T v{};
  if (ax < c::mid_limit) {
    v = c::erx + horner(c::mid_poly, ax - T(1));
  } else {
    const T u = T(1) / ax;
    const T f = ax < c::tail_split ? horner(c::tail_poly_near, u - c::tail_centre_near)
                                   : horner(c::tail_poly_far, u - c::tail_centre_far);
    const twofold<T> x2 = two_product(ax, ax);
    const exp_split<T> e = exp_reduce(-x2.hi);  // e^(-x^2) = (hi + lo)(1 - x2.lo) 2^k
    const T g = e.hi + (e.lo - e.hi * x2.lo);
    const T erfc = g * f * u * pow2<T>(e.k);
    v = T(1) - erfc;
  }
  return sign_bit(x) ? -v : v;
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_ERF_KERNEL_HPP
