// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_TRIG_REDUCTION_HPP
#define CTATTN_MATH_DETAIL_TRIG_REDUCTION_HPP

/// \file
/// Argument reduction for sin and cos over the whole finite range: x = (4n + q + f) pi/2 with |f| <= 1/2,
/// computed exactly in integer arithmetic from a table of the bits of 2/pi (Payne-Hanek), then r = f pi/2 as
/// an unevaluated sum hi + lo.

#include <bit>
#include <cstddef>
#include <cstdint>

#include "ctattn/math/detail/fp.hpp"

namespace ctattn::math::detail {

// The binary expansion of 2/pi, 32 bits a word, most significant first: 2/pi = sum_j w[j] 2^(-32 (j + 1)).
// Printed by generate_math_reference.py --coefficients (mpmath at 1400 bits). 38 words (1216 bits) cover
// every double: the largest exponent needs words up to index 30 + 7.
inline constexpr std::uint32_t two_over_pi_words[] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab};

template <Scalar T>
struct trig_reduction_constants;

// Rationale: the window of 2/pi bits multiplied by the significand has W words. Bits of 2/pi that make
// x 2/pi an integer multiple of 4 are skipped (they do not change sin or cos); after the window, the
// neglected bits change x 2/pi by less than 2^(p + 33 - 32 W). The smallest |x 2/pi mod 1| over all finite
// arguments is about 2^-30 for float and 2^-61 for double (the classic worst cases, which the reference
// fixture includes), so W = 4 (error < 2^-71) and W = 7 (error < 2^-138) leave more than p + 10 correct bits
// of the reduced argument in the worst case. pi/2 is split into a sum of two values of the type.
template <>
struct trig_reduction_constants<float> {
  static constexpr int window_words = 4;
  static constexpr float pio2_hi = 0x1.921fb6p+0f;
  static constexpr float pio2_lo = -0x1.777a5cp-25f;
};

template <>
struct trig_reduction_constants<double> {
  static constexpr int window_words = 7;
  static constexpr double pio2_hi = 0x1.921fb54442d18p+0;
  static constexpr double pio2_lo = 0x1.1a62633145c07p-54;
};

template <Scalar T>
struct reduced_argument {
  int quadrant;  // n mod 4
  T hi;          // r = hi + lo, |r| <= pi/4 (plus rounding)
  T lo;
};

// 32 bits of the little-endian integer s[0..n) starting at bit pos (which may be negative or past the end).
template <std::size_t N>
constexpr std::uint32_t bits_at(const std::uint32_t (&s)[N], int pos) noexcept {
  if (pos <= -32 || pos >= 32 * static_cast<int>(N)) return 0;
  if (pos < 0) return s[0] << (-pos);
  const auto limb = static_cast<std::size_t>(pos / 32);
  const int offset = pos % 32;
  std::uint64_t v = s[limb];
  if (limb + 1 < N) v |= static_cast<std::uint64_t>(s[limb + 1]) << 32;
  return static_cast<std::uint32_t>(v >> offset);
}

/// Reduces a finite |x| >= pi/4 (positive).
template <Scalar T>
constexpr reduced_argument<T> reduce_pio2(T x) noexcept {
  using fmt = format<T>;
  using c = trig_reduction_constants<T>;
  constexpr int mb = fmt::mantissa_bits;
  constexpr int w = c::window_words;
  const auto b = static_cast<std::uint64_t>(to_bits(x));
  // x = m 2^e with m an integer of mb + 1 bits (x >= pi/4 is normal)
  const std::uint64_t m = (b & ((std::uint64_t{1} << mb) - 1)) | (std::uint64_t{1} << mb);
  const int e = static_cast<int>(b >> mb) - fmt::bias - mb;
  const int j0 = e > 1 ? (e - 2) / 32 : 0;  // words before j0 contribute multiples of 4
  // s = m * (words j0 .. j0 + w - 1), little-endian 32-bit limbs
  std::uint32_t s[static_cast<std::size_t>(w) + 2] = {};
  const std::uint32_t m_limbs[2] = {static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
  for (int i = 0; i < w; ++i) {
    const std::uint64_t word = two_over_pi_words[j0 + w - 1 - i];
    std::uint64_t carry = 0;
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t t = word * m_limbs[j] + s[i + j] + carry;
      s[i + j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    s[i + 2] = static_cast<std::uint32_t>(carry);
  }
  // x 2/pi = s 2^-point (mod 4): two integer bits above the point, 128 fraction bits below it
  const int point = 32 * (j0 + w) - e;
  int quadrant = static_cast<int>(bits_at(s, point) & 3);
  std::uint64_t f_hi = (static_cast<std::uint64_t>(bits_at(s, point - 32)) << 32) | bits_at(s, point - 64);
  std::uint64_t f_lo = (static_cast<std::uint64_t>(bits_at(s, point - 96)) << 32) | bits_at(s, point - 128);
  bool negative = false;
  if ((f_hi >> 63) != 0) {  // f >= 1/2: use f - 1 and the next quadrant
    negative = true;
    quadrant = (quadrant + 1) & 3;
    f_lo = ~f_lo + 1;
    f_hi = ~f_hi + (f_lo == 0 ? 1 : 0);
  }
  if (f_hi == 0 && f_lo == 0) return {quadrant, T(0), T(0)};
  // normalize the 128-bit fraction, then split it into hi (p bits, exact) and lo (the next bits, rounded)
  const int lz = f_hi != 0 ? std::countl_zero(f_hi) : 64 + std::countl_zero(f_lo);
  if (lz >= 64) {
    f_hi = f_lo << (lz - 64);
    f_lo = 0;
  } else if (lz > 0) {
    f_hi = (f_hi << lz) | (f_lo >> (64 - lz));
    f_lo <<= lz;
  }
  constexpr int p = mb + 1;
  const std::uint64_t top = f_hi >> (64 - p);
  const std::uint64_t next = (f_hi << p) | (f_lo >> (64 - p));  // the following 64 bits
  // Rationale: float's lo part uses the top 32 of those bits, so that every conversion is from a 32-bit integer
  // (a single instruction on Cortex-M4F) and every power of two stays in float's normal range.
  const T f_top = static_cast<T>(static_cast<bits_t<T>>(top)) * pow2<T>(-p - lz);
  T f_next{};
  if constexpr (sizeof(T) == 4) {
    f_next = static_cast<T>(static_cast<std::uint32_t>(next >> 32)) * pow2<T>(-p - 32 - lz);
  } else {
    f_next = static_cast<T>(next) * pow2<T>(-p - 64 - lz);
  }
  // r = f pi/2 in double-length arithmetic
  const twofold<T> prod = two_product(f_top, c::pio2_hi);
  const T tail = prod.lo + (f_top * c::pio2_lo + f_next * c::pio2_hi);
  const twofold<T> r = fast_two_sum(prod.hi, tail);
  if (negative) return {quadrant, -r.hi, -r.lo};
  return {quadrant, r.hi, r.lo};
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_TRIG_REDUCTION_HPP
