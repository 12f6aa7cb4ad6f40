// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_TANH_HPP
#define CTATTN_MATH_TANH_HPP

/// \file
/// ctattn::math::tanh: the hyperbolic tangent, in constant expressions and at run time with identical results.

#include "ctattn/math/detail/tanh_kernel.hpp"

namespace ctattn::math {

/// The hyperbolic tangent, for float and double; the same bits in constant evaluation and at run time.
///
/// | x                                         | result                              |
/// |-------------------------------------------|-------------------------------------|
/// | NaN                                       | the same NaN                        |
/// | +-0                                       | +-0 (sign kept; so are subnormal x) |
/// | +-inf                                     | +-1                                 |
/// | abs(x) >= 9.0109 (float), 19.0617 (double)| +-1 exactly (the rounded value)     |
/// | accuracy (all x)                          | float <= 1 ulp, double <= 2 ulp     |
///
/// \code
/// static_assert(ctattn::math::tanh(-0.0f) == 0.0f && ctattn::math::tanh(20.0) == 1.0);
/// constexpr float t = ctattn::math::tanh(0.5f);  // 0x1.d9353ep-2f
/// \endcode
constexpr float tanh(float x) noexcept { return detail::tanh(x); }

/// \copydoc tanh(float)
constexpr double tanh(double x) noexcept { return detail::tanh(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_TANH_HPP
