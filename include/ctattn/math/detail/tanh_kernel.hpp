// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_TANH_KERNEL_HPP
#define CTATTN_MATH_DETAIL_TANH_KERNEL_HPP

/// \file
/// The hyperbolic tangent: a polynomial near 0, 1 - 2 / (e^(2|x|) + 1) with extra precision beyond.

#include "ctattn/math/detail/exp_kernel.hpp"
#include "ctattn/math/detail/fp.hpp"

namespace ctattn::math::detail {

template <Scalar T>
struct tanh_constants;

// Rationale: for |x| < 0.55 (where tanh x < 1/2) tanh x = x + x^3 P(x^2), P a Chebyshev fit of
// (tanh x - x)/x^3 in z = x^2 (generate_math_reference.py --coefficients: 2^-28.0 float degree 5, 2^-57.6
// double degree 10, relative to the result). Above, tanh x = 1 - 2/(e^(2x) + 1) with e^(2x) and the quotient
// carried to about twice the working precision (the plain formula loses up to an ulp in float). `one` is the
// smallest x whose correctly rounded tanh is 1; below `tiny`, tanh x rounds to x.
template <>
struct tanh_constants<float> {
  static constexpr float tiny = 0x1p-12f;
  static constexpr float poly_limit = 0.55f;
  static constexpr float one = 0x1.205968p+3f;  // 9.0109
  static constexpr float poly[] = {-0x1.555556p-2f, 0x1.111104p-3f, -0x1.ba142ep-5f,
                                   0x1.657936p-6f,  -0x1.17641p-7f, 0x1.4b239ap-9f};
};

template <>
struct tanh_constants<double> {
  static constexpr double tiny = 0x1p-27;
  static constexpr double poly_limit = 0.55;
  static constexpr double one = 0x1.30fc1931f09cap+4;  // 19.0617
  static constexpr double poly[] = {-0x1.5555555555555p-2,  0x1.1111111111032p-3,  -0x1.ba1ba1b9fec84p-5,
                                    0x1.664f487713373p-6,   -0x1.226e32f00cf0cp-7, 0x1.d6d339333f329p-9,
                                    -0x1.7d97cfd138c28p-10, 0x1.34c5a8a996cd4p-11, -0x1.ec1091436eb2ap-13,
                                    0x1.64fd88e9900a4p-14,  -0x1.59a834187ce22p-16};
};

template <Scalar T>
constexpr T tanh(T x) noexcept {
  using c = tanh_constants<T>;
  if (is_nan(x)) return x;
  const T ax = abs(x);
  if (ax < c::tiny) return x;  // keeps -0 and subnormals
  if (ax >= c::one) return sign_bit(x) ? T(-1) : T(1);
  if (ax < c::poly_limit) {
    const T z = x * x;
    return x + x * z * horner(c::poly, z);
  }
  const exp_split<T> e = exp_reduce(T(2) * ax);  // e^(2|x|) = (hi + lo) 2^k, 1 <= k <= 56
  const T e_hi = e.hi * pow2<T>(e.k);
  const T e_lo = e.lo * pow2<T>(e.k);
  const twofold<T> d = fast_two_sum(e_hi, T(1));  // d = e^(2|x|) + 1 >= 4
  const T d_lo = d.lo + e_lo;
  // q = 2 / d to about 2p bits: a first quotient, then the exact residual 2 - q0 d divided by d
  const T q0 = T(2) / d.hi;
  const twofold<T> p = two_product(q0, d.hi);
  const T q1 = (((T(2) - p.hi) - p.lo) - q0 * d_lo) / d.hi;
  const twofold<T> t = fast_two_sum(T(1), -q0);  // 1 - q0 exactly
  const T v = t.hi + (t.lo - q1);
  return sign_bit(x) ? -v : v;
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_TANH_KERNEL_HPP
