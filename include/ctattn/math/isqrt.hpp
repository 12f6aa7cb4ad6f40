// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_ISQRT_HPP
#define CTATTN_MATH_ISQRT_HPP

/// \file
/// ctattn::math::isqrt: the integer square root floor(sqrt(v)) of a 64-bit unsigned integer, exact, in constant
/// expressions and at run time (integers only: the same result on every target, with or without an FPU).

#include <cstdint>

namespace ctattn::math {

/// floor(sqrt(v)) for every v in [0, 2^64): the largest r with r^2 <= v, so r < 2^32.
///
/// | v              | result          |
/// |----------------|-----------------|
/// | 0, 1, 2, 3     | 0, 1, 1, 1      |
/// | n^2 - 1, n^2   | n - 1, n        |
/// | 2^64 - 1       | 2^32 - 1        |
///
/// \code
/// static_assert(ctattn::math::isqrt(99) == 9 && ctattn::math::isqrt(100) == 10);
/// static_assert(ctattn::math::isqrt(0xFFFF'FFFF'FFFF'FFFF) == 0xFFFF'FFFF);
/// \endcode
// Rationale: the digit-by-digit (restoring) method decides one bit of the root per step, from the top, and keeps
// the remainder v - r^2 exactly; after the last step the root is floor(sqrt(v)) with nothing left to correct (a
// Newton iteration needs a division per step and a final check). At most 32 steps of a compare, a subtraction and
// shifts. No overflow: at the step whose `bit` is 4^m, `root` is the root found so far (r < 2^(31 - m)) times
// 4^(m + 1), so root + bit < 2^(m + 33) + 4^m, at most 2^63 + 2^60 (m <= 30 once r > 0).
constexpr std::uint32_t isqrt(std::uint64_t v) noexcept {
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    const std::uint64_t trial = root + bit;
    if (v >= trial) {
      v -= trial;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return static_cast<std::uint32_t>(root);
}

}  // namespace ctattn::math

#endif  // CTATTN_MATH_ISQRT_HPP
