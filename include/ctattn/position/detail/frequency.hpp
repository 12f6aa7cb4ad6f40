// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_POSITION_DETAIL_FREQUENCY_HPP
#define CTATTN_POSITION_DETAIL_FREQUENCY_HPP

/// \file
/// The angles behind the sinusoidal encoding and the rotary embedding, computed in double.

#include <cstddef>

#include "ctattn/math/exp.hpp"
#include "ctattn/math/log.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn::detail {

/// base^(2i / width) in double, for column pair i of a table `width` columns wide.
// Rationale: evaluated as exp((2i / width) ln base) in double whatever the table's element type (ctattn::math's
// exp and log, so the same bits at compile time and at run time). The exponent is at most ln base (9.21 for
// 10000), off by a few units of 2^-53 relative, so the power is off by at most about 2^-48 relative. A float
// table rounds that away: it equals the float64 reference rounded to float except where a value lies within
// about 2^-48 of a float rounding boundary (measured: every element of PyTorch's tables, and all but one of the
// 262144 elements of a 2048 x 128 table, identical). In a double table the angle t / power carries t times that
// error, about as much as rounding the angle itself to double already costs (t * 2^-53).
constexpr double frequency_power(std::size_t pair, std::size_t width, std::size_t base) noexcept {
  const double exponent = static_cast<double>(2 * pair) / static_cast<double>(width);
  return math::exp(exponent * math::log(static_cast<double>(base)));
}

}  // namespace ctattn::detail

#endif  // CTATTN_POSITION_DETAIL_FREQUENCY_HPP
