// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_LOG_HPP
#define CTATTN_MATH_LOG_HPP

/// \file
/// ctattn::math::log: the natural logarithm, in constant expressions and at run time with identical results.

#include "ctattn/math/detail/log_kernel.hpp"

namespace ctattn::math {

/// The natural logarithm ln x, for float and double; the same bits in constant evaluation and at run time.
///
/// | x                         | result                   |
/// |---------------------------|--------------------------|
/// | NaN                       | the same NaN             |
/// | x < 0, -inf               | NaN (quiet, positive)    |
/// | +-0                       | -inf (pole)              |
/// | 1                         | +0                       |
/// | +inf                      | +inf                     |
/// | subnormal x               | finite, full accuracy    |
/// | accuracy (all x > 0)      | float <= 1 ulp, double <= 2 ulp |
///
/// \code
/// static_assert(ctattn::math::log(1.0f) == 0.0f);
/// constexpr double ln2 = ctattn::math::log(2.0);  // 0x1.62e42fefa39efp-1
/// \endcode
constexpr float log(float x) noexcept { return detail::log(x); }

/// \copydoc log(float)
constexpr double log(double x) noexcept { return detail::log(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_LOG_HPP
