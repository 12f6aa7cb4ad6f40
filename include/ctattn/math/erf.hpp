// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_ERF_HPP
#define CTATTN_MATH_ERF_HPP

/// \file
/// ctattn::math::erf: the error function, in constant expressions and at run time with identical results.

#include "ctattn/math/detail/erf_kernel.hpp"

namespace ctattn::math {

/// The error function erf x = 2/sqrt(pi) * integral of e^(-t^2) from 0 to x, for float and double (GELU is
/// x/2 (1 + erf(x/sqrt 2))); the same bits in constant evaluation and at run time.
///
/// | x                                         | result                              |
/// |-------------------------------------------|-------------------------------------|
/// | NaN                                       | the same NaN                        |
/// | +-0                                       | +-0 (sign kept)                     |
/// | subnormal x                               | 2x/sqrt(pi), rounded once           |
/// | +-inf                                     | +-1                                 |
/// | abs(x) >= 3.9192 (float), 5.9215 (double) | +-1 exactly (the rounded value)     |
/// | accuracy (all x)                          | float <= 1 ulp, double <= 2 ulp     |
///
/// \code
/// static_assert(ctattn::math::erf(-0.0) == 0.0 && ctattn::math::erf(10.0f) == 1.0f);
/// constexpr double e = ctattn::math::erf(1.0);  // 0x1.af767a741088bp-1
/// \endcode
constexpr float erf(float x) noexcept { return detail::erf(x); }

/// \copydoc erf(float)
constexpr double erf(double x) noexcept { return detail::erf(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_ERF_HPP
