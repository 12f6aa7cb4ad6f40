// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_SQRT_KERNEL_HPP
#define CTATTN_MATH_DETAIL_SQRT_KERNEL_HPP

/// \file
/// Correctly rounded square root by exact integer arithmetic (usable in constant evaluation).

#include "ctattn/math/detail/fp.hpp"

namespace ctattn::math::detail {

// Rationale: the digit-by-digit (restoring) integer square root gives floor(sqrt(A)) and the exact remainder
// A - root^2, so rounding to nearest is exact: round up when the remainder exceeds root (a tie is impossible,
// the square of a (p+1)-bit odd number never has only p significant bits). It needs p + 1 iterations of a
// few integer operations and no wider integer than the type's own bits (a 128-bit type is not available on
// 32-bit targets).
template <Scalar T>
constexpr T sqrt_exact(T x) noexcept {
  using fmt = format<T>;
  using bits = bits_t<T>;
  constexpr int mb = fmt::mantissa_bits;
  if (is_nan(x)) return x;
  if (x == T(0)) return x;  // keeps the sign of zero
  if (x < T(0)) return quiet_nan<T>();
  if (x == infinity<T>()) return x;
  const bits b = to_bits(x);
  bits m = b & ((bits{1} << mb) - 1);
  int e = static_cast<int>(b >> mb);
  if (e == 0) {  // subnormal: normalize
    const int shift = std::countl_zero(m) - (static_cast<int>(sizeof(T)) * 8 - 1 - mb);
    m <<= shift;
    e = 1 - shift;
  } else {
    m |= bits{1} << mb;
  }
  int ue = e - fmt::bias;  // x = m 2^(ue - mb), m in [2^mb, 2^(mb+1))
  if ((ue & 1) != 0) {
    m <<= 1;
    --ue;
  }
  // sqrt(x) = sqrt(m 2^mb) 2^(ue/2 - mb); A = m 2^mb has 2 mb + 2 bits, taken two at a time from the top.
  bits root = 0;
  bits rem = 0;
  for (int shift = 2 * mb; shift >= 0; shift -= 2) {
    bits pair = 0;
    if (shift >= mb) {
      pair = (m >> (shift - mb)) & 3;
    } else if (shift == mb - 1) {
      pair = (m & 1) << 1;
    }
    rem = (rem << 2) | pair;
    root <<= 1;
    const bits trial = (root << 1) | 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1;
    }
  }
  if (rem > root) ++root;  // round to nearest; root may become 2^(mb+1): the carry reaches the exponent
  const bits exponent = static_cast<bits>(ue / 2 + fmt::bias) << mb;
  return from_bits<T>(exponent + (root - (bits{1} << mb)));
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_SQRT_KERNEL_HPP
