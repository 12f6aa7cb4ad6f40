// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_ISQRT_HPP
#define CTATTN_MATH_ISQRT_HPP

/// \file
/// ctattn::math::isqrt: the integer square root floor(sqrt(v)) of a 64-bit unsigned integer, exact, in constant
/// expressions and at run time (integers only: the same result on every target, with or without an FPU); and
/// ctattn::math::narrow_quotient, a 64-bit value divided by a 32-bit one where the quotient fits 32 bits; and
/// ctattn::math::reciprocal_guess, a reciprocal by one 32-bit division that guesses quotients to within one.
///
/// | function                 | computes                          | on 32-bit Arm with a divide instruction      |
/// |--------------------------|-----------------------------------|----------------------------------------------|
/// | `narrow_quotient(n, d)`  | floor(n / d), n / d < 2^32        | two 16-bit digits by `udiv` (no library call) |
/// | `isqrt(v)`               | floor(sqrt(v))                    | the top word's root by Newton's iteration on 32 bits, one `udiv` for the next 16 bits, a correction |
/// | `reciprocal_guess(d)`    | floor(2^40 / d) or up to 128 less | one `udiv`                                   |

#include <bit>
#include <cstdint>
#include <type_traits>

namespace ctattn::math {

/// floor(n / d) for d >= 1 and n < d 2^32 (so that the quotient fits 32 bits).
///
/// | n, d                       | result         |
/// |----------------------------|----------------|
/// | 2^61 + 2^29, 2^30          | 2^31           |
/// | d 2^32 - 1, d              | 2^32 - 1       |
///
/// \code
/// static_assert(ctattn::math::narrow_quotient((std::uint64_t{1} << 61) + (1u << 29), 1u << 30) == 1u << 31);
/// \endcode
// Rationale: on the Cortex-M3 and up (32-bit Arm with `udiv`) a 64-bit division is a call to the C library's
// general routine, about 120 instructions; here the divisor is normalized (its top bit set) and the quotient found
// as two 16-bit digits, each estimated by one `udiv` of the partial remainder by the divisor's top half and lowered
// while its product with the divisor's low half shows it too large (at most twice, Knuth's algorithm D): about 40.
constexpr std::uint32_t narrow_quotient(std::uint64_t n, std::uint32_t d) noexcept {
#if defined(__arm__) && defined(__ARM_FEATURE_IDIV)
  if (!std::is_constant_evaluated()) {
    const int s = std::countl_zero(d);
    const std::uint32_t divisor = d << s;
    const std::uint64_t shifted = n << s;  // n < d 2^32, so n 2^s < 2^64
    const std::uint32_t high = divisor >> 16;
    const std::uint32_t low = divisor & 0xFFFFu;
    // One digit: floor((rest 2^16 + next) / divisor), rest < divisor, and the new remainder.
    const auto digit = [high, low, divisor](std::uint32_t rest, std::uint32_t next, std::uint32_t& remainder) {
      std::uint32_t q = rest / high;
      std::uint32_t r = rest - q * high;
      while (q > 0xFFFFu || q * low > ((r << 16) | next)) {
        --q;
        r += high;
        if (r > 0xFFFFu) break;
      }
      remainder = (rest << 16) + next - q * divisor;  // modulo 2^32: the true remainder is below the divisor
      return q;
    };
    const auto word = static_cast<std::uint32_t>(shifted);
    std::uint32_t remainder = 0;
    const std::uint32_t upper = digit(static_cast<std::uint32_t>(shifted >> 32), word >> 16, remainder);
    const std::uint32_t lower = digit(remainder, word & 0xFFFFu, remainder);
    return (upper << 16) | lower;
  }
#endif
  return static_cast<std::uint32_t>(n / d);
}

/// For a divisor d in [2^21, 2^32), a reciprocal r = floor(2^31 / (floor(d / 2^9) + 1)) with
/// floor(2^40 / d) - 128 <= r <= floor(2^40 / d), so that for every n < 2^32 the guess floor(n r / 2^40) is
/// floor(n / d) or one less (the int8 softmax's weights settle it by the remainder, kernels/int8.hpp).
///
/// | d                  | floor(2^40 / d) | result  |
/// |--------------------|-----------------|---------|
/// | 2^21               | 2^19            | 524,160 |
/// | 2^32 - 1           | 256             | 256     |
///
/// \code
/// static_assert(ctattn::math::reciprocal_guess(1u << 21) == 524'160);
/// static_assert(ctattn::math::reciprocal_guess(0xFFFF'FFFFu) == 256);
/// \endcode
// Rationale: a softmax row's weights need a reciprocal of its doubled sum once a row; exact, floor(2^40 / d) is a
// 64-bit division (a library call of about 100 instructions on a 32-bit core, or `narrow_quotient`'s 40). Rounding
// the divisor up to a multiple of 2^9 makes it one 32-bit division and keeps r from above the exact one. Its
// shortfall: with h = floor(d / 2^9) + 1 > d / 2^9, 2^40 / d - 2^31 / h = 2^31 (2^9 h - d) / (d h) <= 2^40 / (d h)
// < 2^49 / d^2 <= 128, and the floor takes less than 1 more, so r >= floor(2^40 / d) - 128. The guess then falls
// short of n / d by n (2^40 / d - r) / 2^40 < 2^32 129 / 2^40 < 1, and is at most n / d since r <= 2^40 / d.
constexpr std::uint32_t reciprocal_guess(std::uint32_t d) noexcept { return (1u << 31) / ((d >> 9) + 1); }

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
// Rationale (32-bit Arm with `udiv`, v below 2^62): v scaled by 4^s into [2^60, 2^62) (floor(sqrt(v)) is then the
// scaled root's floor divided by 2^s); the root of its top word, r1 = floor(sqrt(top)) in [2^14, 2^15), by
// Newton's iteration on 32 bits x <- floor((x + floor(top / x)) / 2) from 2^15 (it decreases until it stops at r1);
// then one step of the root's next 16 bits, d = floor(N / (2 r1)) with N = (top - r1^2) 2^16 + (low word >> 16)
// (below 2^32, as top - r1^2 <= 2 r1). r = r1 2^16 + d is never below floor(sqrt(v)): 2 r1 (d + 1) >= N + 1 makes
// (r + 1)^2 > v. And r^2 <= v + d^2 with d <= 2^16 + 1, so r is at most 3 above it: lowered while r^2 > v. Measured
// against Newton's iteration on 64 bits by narrow_quotient (about 200 instructions, three steps for the int8 norms'
// values): 999 instructions fewer a token of the stories260K-shaped model on the M55 (11 RMSNorm rows), 91 a root.
constexpr std::uint32_t isqrt(std::uint64_t v) noexcept {
#if defined(__arm__) && defined(__ARM_FEATURE_IDIV)
  if (!std::is_constant_evaluated() && v != 0 && v < (std::uint64_t{1} << 62)) {
    const int s = (62 - static_cast<int>(std::bit_width(v))) / 2;
    const std::uint64_t scaled = v << (2 * s);                  // in [2^60, 2^62)
    const auto top = static_cast<std::uint32_t>(scaled >> 32);  // in [2^28, 2^30)
    std::uint32_t r1 = 1u << 15;                                // >= sqrt(top)
    for (;;) {
      const std::uint32_t q = top / r1;
      if (q >= r1) break;
      r1 = (r1 + q) >> 1;
    }
    const std::uint32_t next = ((top - r1 * r1) << 16) | (static_cast<std::uint32_t>(scaled) >> 16);
    std::uint32_t root = (r1 << 16) + next / (2 * r1);
    while (std::uint64_t{root} * root > scaled) --root;
    return root >> s;
  }
#endif
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
