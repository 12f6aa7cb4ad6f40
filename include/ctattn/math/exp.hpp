// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_EXP_HPP
#define CTATTN_MATH_EXP_HPP

/// \file
/// ctattn::math::exp: the exponential, in constant expressions and at run time with identical results.

#include "ctattn/math/detail/exp_kernel.hpp"

namespace ctattn::math {

/// The exponential e^x, for float and double; the same bits in constant evaluation and at run time.
///
/// | x                                   | float                | double                |
/// |-------------------------------------|----------------------|-----------------------|
/// | NaN                                 | the same NaN         | the same NaN          |
/// | +-0                                 | 1                    | 1                     |
/// | x > 88.72283 (0x1.62e42ep+6)        | +inf                 |                       |
/// | x > 709.78271 (0x1.62e42fefa39efp+9)|                      | +inf                  |
/// | x < -103.97208 (-0x1.9fe368p+6)     | +0                   |                       |
/// | x < -745.13322                      |                      | +0                    |
/// | -inf, +inf                          | +0, +inf             | +0, +inf              |
/// | accuracy (all finite x)             | <= 1 ulp             | <= 2 ulp              |
///
/// Results below the normal range are subnormal (gradual underflow), rounded once. Accuracy is measured
/// against the correctly rounded value; docs/math.md has the measured maximum and the sweep.
///
/// \code
/// static_assert(ctattn::math::exp(0.0f) == 1.0f);
/// constexpr double e = ctattn::math::exp(1.0);  // 0x1.5bf0a8b145769p+1
/// \endcode
constexpr float exp(float x) noexcept { return detail::exp(x); }

/// \copydoc exp(float)
constexpr double exp(double x) noexcept { return detail::exp(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_EXP_HPP
