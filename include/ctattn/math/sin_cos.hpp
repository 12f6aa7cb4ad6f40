// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_SIN_COS_HPP
#define CTATTN_MATH_SIN_COS_HPP

/// \file
/// ctattn::math::sin and ctattn::math::cos, in constant expressions and at run time with identical results,
/// accurate over the whole finite range (exact argument reduction).

#include "ctattn/math/detail/sin_cos_kernel.hpp"

namespace ctattn::math {

/// The sine of x (radians), for float and double; the same bits in constant evaluation and at run time.
///
/// | x                        | result                                   |
/// |--------------------------|------------------------------------------|
/// | NaN                      | the same NaN                             |
/// | +-0                      | +-0 (sign kept; so are subnormal x)      |
/// | +-inf                    | NaN (quiet, positive)                    |
/// | any finite x             | float <= 1 ulp, double <= 2 ulp          |
///
/// Argument reduction is exact for every finite x (Payne-Hanek with the bits of 2/pi), so there is no range
/// limit: sin(1e22) and sin(FLT_MAX) are as accurate as sin(1). Arguments above pi/4 cost an integer
/// multiplication of the significand by a window of 2/pi (4 words for float, 7 for double).
///
/// \code
/// static_assert(ctattn::math::sin(-0.0f) == 0.0f && ctattn::math::sin(0.5f) > 0.479f);
/// constexpr double s = ctattn::math::sin(1e22);  // -0x1.b453ab76bf397p-1
/// \endcode
constexpr float sin(float x) noexcept { return detail::sin_cos<detail::trig_function::sin>(x); }

/// \copydoc sin(float)
constexpr double sin(double x) noexcept { return detail::sin_cos<detail::trig_function::sin>(x); }

/// The cosine of x (radians), for float and double; the same bits in constant evaluation and at run time.
///
/// | x                        | result                                   |
/// |--------------------------|------------------------------------------|
/// | NaN                      | the same NaN                             |
/// | +-0                      | 1                                        |
/// | +-inf                    | NaN (quiet, positive)                    |
/// | any finite x             | float <= 1 ulp, double <= 2 ulp          |
///
/// Same exact argument reduction as sin: no range limit.
///
/// \code
/// static_assert(ctattn::math::cos(0.0f) == 1.0f);
/// constexpr double c = ctattn::math::cos(3.0);  // -0x1.fae04be85e5d2p-1
/// \endcode
constexpr float cos(float x) noexcept { return detail::sin_cos<detail::trig_function::cos>(x); }

/// \copydoc cos(float)
constexpr double cos(double x) noexcept { return detail::sin_cos<detail::trig_function::cos>(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_SIN_COS_HPP
