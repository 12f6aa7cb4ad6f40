// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT16_REQUANTIZE_HPP
#define CTATTN_KERNELS_DETAIL_INT16_REQUANTIZE_HPP

/// \file
/// The int16 kernels' last steps, shared by kernels/int16.hpp and the backends' 16x8 kernels: a value clamped to
/// int8 or int16, and an int64 accumulator requantized to int16 as TFLite's 16x8 kernels do.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ctattn/detail/config.hpp"
#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail::kernels {

/// v clamped to T's range (int8 or int16).
template <typename T>
CTATTN_ALWAYS_INLINE constexpr T saturate_to(std::int32_t v) noexcept {
#if defined(__ARM_FEATURE_SAT)
  if (!std::is_constant_evaluated()) return static_cast<T>(signed_saturate<8 * sizeof(T)>(v));
#endif
  constexpr std::int32_t lowest = std::numeric_limits<T>::min();
  constexpr std::int32_t highest = std::numeric_limits<T>::max();
  return static_cast<T>(v < lowest ? lowest : (v > highest ? highest : v));
}

/// The terms a 16x8 product sums in int32 before adding them into its int64 sum: each product of an int16 and an
/// int8 is at most 2^22 in magnitude, so 256 of them stay within 2^30, exact in int32 (and the int16 batch matmul's
/// products of a byte and an int16 within 2^31 - 2^23: kernels/detail/int16_simd.hpp). Every 16x8 kernel's chunks.
///
/// Example: `static_assert(ctattn::detail::kernels::int16_exact_terms == 256);`
inline constexpr std::size_t int16_exact_terms = 256;

/// An int64 accumulator (a 16x8 product's) requantized to int16, TFLite's 16x8 requantization with m reduced once:
/// `math::multiply_by_reduced_multiplier(accumulator, m)`, narrowed to int32 as TFLite's cast narrows it (modulo 2^32;
/// a sum that large lies far outside any int16 output), clamped. Kernels that requantize many outputs of one channel
/// make it once, outside their loops.
///
/// Example: `static_assert(ctattn::detail::kernels::int64_requantizer{ctattn::math::quantize_multiplier(0.25)}(1000) == 250);`
struct int64_requantizer {
  /// `math::reduced_multiplier(m)`.
  std::int32_t reduced;
  /// The right shift after the product: 15 - shift.
  int total;

  constexpr explicit int64_requantizer(math::quantized_multiplier m) noexcept
      : reduced(math::reduced_multiplier(m)), total(15 - m.shift) {}

  CTATTN_ALWAYS_INLINE constexpr std::int16_t operator()(std::int64_t accumulator) const noexcept {
    // Rationale: an arithmetic right shift of a negative product, as C++20 defines it (the floor).
    const std::int64_t scaled = (accumulator * reduced + (std::int64_t{1} << (total - 1))) >> total;
    return saturate_to<std::int16_t>(static_cast<std::int32_t>(scaled));
  }
};

/// The same bits for one output: `math::multiply_by_reduced_multiplier(accumulator, m)`, narrowed, clamped.
// Rationale: written on the math function, not as `int64_requantizer{m}(accumulator)`: in the DSP 16x8 FC's blocks
// GCC 12 then keeps the reduction out of the rows' loop, and the requantizer's form cost the M4F's fc16_16x32x32
// 47,600 instructions against 32,710 (benchmarks/firmware/int16_kernels.cpp, -Os).
CTATTN_ALWAYS_INLINE constexpr std::int16_t requantize_int64(std::int64_t accumulator,
                                                             math::quantized_multiplier m) noexcept {
  return saturate_to<std::int16_t>(static_cast<std::int32_t>(math::multiply_by_reduced_multiplier(accumulator, m)));
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_INT16_REQUANTIZE_HPP
