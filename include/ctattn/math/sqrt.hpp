// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_SQRT_HPP
#define CTATTN_MATH_SQRT_HPP

/// \file
/// ctattn::math::sqrt: the correctly rounded square root, in constant expressions and at run time.

#include <type_traits>

#include "ctattn/math/detail/sqrt_kernel.hpp"

namespace ctattn::math {

/// The square root, correctly rounded (round to nearest even), for float and double.
///
/// | x                     | result                                 |
/// |-----------------------|----------------------------------------|
/// | NaN                   | the same NaN                           |
/// | +-0                   | +-0                                    |
/// | x < 0, -inf           | NaN (quiet, positive)                  |
/// | +inf                  | +inf                                   |
/// | subnormal x           | correctly rounded (the result is normal) |
/// | accuracy              | 0 ulp: correctly rounded               |
///
/// \code
/// static_assert(ctattn::math::sqrt(2.0f) == 0x1.6a09e6p+0f);
/// static_assert(ctattn::math::sqrt(64.0) == 8.0);
/// \endcode
// Rationale: IEEE 754 requires the hardware square root to be correctly rounded, and so is the integer
// algorithm used in constant evaluation: both give the same bits for every x >= 0, so at run time the
// instruction (sqrtss/sqrtsd, vsqrt.f32; a correctly rounded libm call for double on a single-precision FPU)
// replaces the loop. Negative and NaN arguments stay on the portable path: hardware NaNs differ in sign and
// payload from quiet_NaN(), and the results must be the same bits in both evaluations.
constexpr float sqrt(float x) noexcept {
  if (std::is_constant_evaluated() || !(x >= 0.0f)) return detail::sqrt_exact(x);
  return __builtin_sqrtf(x);
}

/// \copydoc sqrt(float)
constexpr double sqrt(double x) noexcept {
  if (std::is_constant_evaluated() || !(x >= 0.0)) return detail::sqrt_exact(x);
  return __builtin_sqrt(x);
}

}  // namespace ctattn::math

#endif  // CTATTN_MATH_SQRT_HPP
