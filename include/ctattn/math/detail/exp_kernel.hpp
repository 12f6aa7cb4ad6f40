// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_EXP_KERNEL_HPP
#define CTATTN_MATH_DETAIL_EXP_KERNEL_HPP

/// \file
/// The reduction and polynomial behind ctattn::math::exp, shared with tanh and erf (which need exp(x) to a
/// little more than working precision, as an unevaluated sum hi + lo).

#include "ctattn/math/detail/fp.hpp"

// Rationale: `exp_reduce` also takes GCC's vector types, in constant evaluation only (kernels/constant.hpp); GCC's
// note that passing a vector by value depends on the target's vector extensions (-Wpsabi) concerns no code here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace ctattn::math::detail {

template <Scalar T>
struct exp_constants;

// Rationale (both types): x = k ln2 + r with |r| <= ln2/2, exp(x) = 2^k exp(r). ln2 is split Cody-Waite style
// into ln2_hi with trailing zero bits (16 significant bits for float, 42 for double) so that k * ln2_hi is
// exact for every k that reaches a finite nonzero result (|k| <= 150 for float, <= 1075 for double), and
// x - k * ln2_hi is exact by Sterbenz's lemma; ln2_lo carries the rest. The polynomial approximates
// q(r) = (e^r - 1 - r) / r^2 on |r| <= ln2/2 (plus a margin for the rounding of k): a Chebyshev fit with
// coefficients rounded to the type (generate_math_reference.py --coefficients prints the fit and its error:
// 2^-30.9 for float at degree 5, 2^-56.1 for double at degree 9, relative to exp(r)). The thresholds are the
// exact values of the type where the correctly rounded result becomes infinite or zero (same script).
template <>
struct exp_constants<float> {
  static constexpr float inv_ln2 = 0x1.715476p+0f;
  static constexpr float ln2_hi = 0x1.62e4p-1f;
  static constexpr float ln2_lo = 0x1.7f7d1cp-20f;
  static constexpr float poly[] = {0x1p-1f,       0x1.555556p-3f,  0x1.5554eap-5f,
                                   0x1.1110ep-7f, 0x1.6d4316p-10f, 0x1.a124e4p-13f};
  static constexpr float overflow = 0x1.62e42ep+6f;    // largest x with a finite result, 88.7228
  static constexpr float underflow = -0x1.9fe368p+6f;  // smallest x with a nonzero result, -103.9721
};

template <>
struct exp_constants<double> {
  static constexpr double inv_ln2 = 0x1.71547652b82fep+0;
  static constexpr double ln2_hi = 0x1.62e42fefa38p-1;
  static constexpr double ln2_lo = 0x1.ef35793c7673p-45;
  static constexpr double poly[] = {0x1.0000000000001p-1,  0x1.5555555555556p-3,  0x1.5555555553d68p-5,
                                    0x1.11111111109b5p-7,  0x1.6c16c17889f3cp-10, 0x1.a01a01a7c2f2cp-13,
                                    0x1.a019b914881bap-16, 0x1.71de0db2eb873p-19, 0x1.28917c9f3a495p-22,
                                    0x1.af389eea54156p-26};
  static constexpr double overflow = 0x1.62e42fefa39efp+9;    // 709.7827
  static constexpr double underflow = -0x1.74910d52d3051p+9;  // -745.1332
};

/// exp(x) = (hi + lo) * 2^k with hi in [0.70, 1.42] and hi + lo accurate to about 2^-(p + 4), for
/// underflow <= x <= overflow. k is an int for a scalar V, and lanes holding the integers k for a GCC vector V
/// (kernels/constant.hpp's `lanes_exp`, which computes each lane as the scalar reduction does).
template <typename V>
struct exp_split {
  V hi;
  V lo;
  std::conditional_t<Scalar<V>, int, V> k;
};

template <typename V>
constexpr exp_split<V> exp_reduce(V x) noexcept {
  using T = element_t<V>;
  using c = exp_constants<T>;
  const V kf = round_to_integer(x * c::inv_ln2);
  const V r_hi = x - kf * c::ln2_hi;  // exact
  const V k_lo = kf * c::ln2_lo;
  const V r = r_hi - k_lo;
  const V r_lo = (r_hi - r) - k_lo;  // the rounding error of r (when it matters, |r_hi| >= |k_lo|)
  // e^(r + r_lo) = 1 + r + r^2 q(r) + r_lo (1 + r) + O(r_lo^2)
  // Rationale: the last two additions are error-free (fast two-sum), so the only roundings that reach the
  // result are those of the small tail (at most 2^-5 of an ulp of the result) and the final one.
  const V tail = r * r * horner(c::poly, r) + (r_lo + r * r_lo);
  const twofold<V> u = fast_two_sum(r, tail);
  const twofold<V> e = fast_two_sum(T(1), u.hi);
  if constexpr (Scalar<V>) {
    return {e.hi, e.lo + u.lo, static_cast<int>(kf)};
  } else {
    return {e.hi, e.lo + u.lo, kf};
  }
}

template <Scalar T>
constexpr T exp(T x) noexcept {
  using c = exp_constants<T>;
  if (is_nan(x)) return x;
  if (x > c::overflow) return infinity<T>();
  if (x < c::underflow) return T(0);
  const exp_split<T> s = exp_reduce(x);
  return scale(s.hi + s.lo, s.k);
}

}  // namespace ctattn::math::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // CTATTN_MATH_DETAIL_EXP_KERNEL_HPP
