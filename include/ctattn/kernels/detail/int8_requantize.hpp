// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT8_REQUANTIZE_HPP
#define CTATTN_KERNELS_DETAIL_INT8_REQUANTIZE_HPP

/// \file
/// The per-output requantization of the int8 kernels, shared by kernels/int8.hpp and the backends' own
/// fully-connected kernels (kernels/arm_dsp_int8.hpp): an int32 sum, a fixed-point multiplier and shift, the output's
/// zero point, to int8, with TFLite's rounding.
///
/// | function                                   | computes                                                  |
/// |--------------------------------------------|-----------------------------------------------------------|
/// | `saturate_int8(v)`                         | v clamped to [-128, 127]                                  |
/// | `requantize_output(sum, multiplier, shift, zero)` | TFLite's MultiplyByQuantizedMultiplier, + zero, clamped |
///
/// Example: `static_assert(ctattn::detail::kernels::requantize_output(100, 1 << 30, 0, 3) == 53);`

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/detail/config.hpp"
#include "ctattn/kernels/detail/target.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail::kernels {

#if defined(__ARM_FEATURE_SAT)
/// v saturated to a signed Bits-bit integer by the `ssat` instruction.
// Rationale: the builtin rather than ACLE's `__ssat`, which GCC 12 defines as a macro whose unsigned result
// -Wsign-conversion reports at every use.
template <int Bits>
CTATTN_ALWAYS_INLINE std::int32_t signed_saturate(std::int32_t v) noexcept {
  return static_cast<std::int32_t>(__builtin_arm_ssat(v, Bits));
}
#endif

#if defined(__ARM_FEATURE_DSP)
/// floor((a 2^32 + b c + 2^31) / 2^32), the 64-bit sum's rounded high word: one `smmlar`. The requantizers' doubling
/// high multiply (`output_requantizer::high_product`, the DSP product kernel's columns).
CTATTN_ALWAYS_INLINE std::int32_t rounded_high_sum(std::int32_t a, std::int32_t b, std::int32_t c) noexcept {
  std::int32_t high;
  asm("smmlar %0, %1, %2, %3" : "=r"(high) : "r"(b), "r"(c), "r"(a));
  return high;
}
#endif

/// v clamped to [-128, 127]: `ssat` on a core that has it (Cortex-M3 and up), else two comparisons.
CTATTN_ALWAYS_INLINE constexpr std::int8_t saturate_int8(std::int32_t v) noexcept {
#if defined(__ARM_FEATURE_SAT)
  if (!std::is_constant_evaluated()) return static_cast<std::int8_t>(signed_saturate<8>(v));
#endif
  return static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

/// floor((x m + 2^30) / 2^31) for m in [0, 2^31): TFLite's doubling high multiply, which cannot saturate for such
/// an m. On Armv6-M (Cortex-M0, M0+: no 32 x 32 -> 64 multiply) the product is built from four 16 x 16 -> 32
/// multiplies of |x| and m; elsewhere it is the int64 product (one `smull` or `smlal`).
// Rationale: on the M0, GCC calls libgcc's general 64 x 64 multiply for the int64 form. Here the product's
// magnitude u = |x| m < 2^62 is summed from its 16-bit partial products with explicit carries, and the rounding
// follows the sign: floor((u + 2^30) / 2^31) for x >= 0, -floor((u + 2^30 - 1) / 2^31) for x < 0 (the same
// floor of a negative value, as ceil((u - 2^30) / 2^31) = floor((u - 2^30 + 2^31 - 1) / 2^31)).
CTATTN_ALWAYS_INLINE constexpr std::int32_t doubling_high_product(std::int32_t x, std::int32_t m) noexcept {
#if defined(__ARM_ARCH_6M__)
  if (!std::is_constant_evaluated()) {
    const std::uint32_t a = x < 0 ? 0u - static_cast<std::uint32_t>(x) : static_cast<std::uint32_t>(x);
    const auto b = static_cast<std::uint32_t>(m);
    const std::uint32_t al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
    const std::uint32_t low_low = al * bl;
    const std::uint32_t low_high = al * bh;
    const std::uint32_t high_low = ah * bl;
    // a <= 2^31 and b < 2^31, so ah <= 2^15 and bh < 2^15: each cross product is below 2^31 and their sum cannot
    // carry out of 32 bits.
    const std::uint32_t middle = low_high + high_low;
    const std::uint32_t low = low_low + (middle << 16);
    std::uint32_t high = ah * bh + (middle >> 16) + (low < low_low ? 1u : 0u);
    const std::uint32_t rounding = x < 0 ? (1u << 30) - 1u : 1u << 30;
    const std::uint32_t rounded = low + rounding;
    high += rounded < low ? 1u : 0u;
    const std::uint32_t magnitude = (high << 1) | (rounded >> 31);
    return static_cast<std::int32_t>(x < 0 ? 0u - magnitude : magnitude);
  }
#endif
  return static_cast<std::int32_t>((std::int64_t{x} * m + (std::int64_t{1} << 30)) >> 31);
}

/// TFLite's requantization of int32 sums to int8 for one multiplier in [0, 2^31) (as `math::quantize_multiplier`
/// makes every one) and one output zero point: `requantize(accumulator, {multiplier, shift}, zero)`'s bits in fewer
/// instructions, with what depends on the shift alone computed once, where the kernel sets up a channel.
// Rationale: a non-negative multiplier cannot meet the one product the doubling high multiply saturates,
// (-2^31)(-2^31), so its test goes; the rounding right shift (ties away from zero, as gemmlowp's) is `scaled`'s;
// the value is saturated to 9 bits before the zero point is added (which cannot change the clamped result) and to
// 8 after: two `ssat`s where the core has them.
struct output_requantizer {
  std::int32_t multiplier;
  int left;
  int right;
  std::int32_t zero;
  std::int32_t doubled;     // the multiplier times 2, modulo 2^32
  std::int32_t normalized;  // all ones when the multiplier is at least 2^30, else 0

  CTATTN_ALWAYS_INLINE constexpr output_requantizer(std::int32_t m, int shift, std::int32_t zero_point) noexcept
      : multiplier{m},
        left{shift > 0 ? shift : 0},
        right{shift > 0 ? 0 : -shift},
        zero{zero_point},
        doubled{static_cast<std::int32_t>(static_cast<std::uint32_t>(m) << 1)},
        normalized{m >= (1 << 30) ? -1 : 0} {}

  /// accumulator times the multiplier, with TFLite's two roundings: `math::multiply_by_quantized_multiplier`'s value.
  // Rationale: for a shift e >= 1, rounding half away from zero is floor((h - (h < 0) + 2^(e-1)) / 2^e), which is
  // (t >> e) plus bit e - 1 of t for t = h - (h < 0): no addition that could overflow (h >= -2^31 + 1, so t cannot
  // wrap), 4 instructions, and none where the shift is a constant 0.
  // Rationale: each function is a few full-expressions, as constant evaluation counts them (the int8 sorter's
  // compile-time inference runs it about 20,000 times within Clang's default budget).
  CTATTN_ALWAYS_INLINE constexpr std::int32_t scaled(std::int32_t accumulator) const noexcept {
    const std::int32_t high = high_product(static_cast<std::int32_t>(static_cast<std::uint32_t>(accumulator) << left));
    const auto t =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(high) - (static_cast<std::uint32_t>(high) >> 31));
    return right == 0 ? high : (t >> right) + ((t >> (right - 1)) & 1);
  }

  /// `scaled` of an accumulator whose shifted value a 2^left is below 2^30 in magnitude (an int8 ADD's input less its
  /// zero point, shifted left by at most 21): the rounding constant 2^(right - 1) added to t before the shift, which
  /// then cannot overflow (|t| < 2^30), and which the caller's next addition can take with the shift (on Arm, one
  /// `add` with a shifted operand where `scaled` takes `ubfx` and two).
  CTATTN_ALWAYS_INLINE constexpr std::int32_t scaled_small(std::int32_t accumulator) const noexcept {
    const std::int32_t high = high_product(static_cast<std::int32_t>(static_cast<std::uint32_t>(accumulator) << left));
    if (right == 0) return high;
    const auto t =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(high) - (static_cast<std::uint32_t>(high) >> 31));
    return (t + (std::int32_t{1} << (right - 1))) >> right;
  }

  /// doubling_high_product(x, multiplier): where the core has `smmlar`, with its operands prepared once, where the
  /// kernel sets up a channel.
  // Rationale: one `smmlar`, whose 64-bit sum a 2^32 + x d + 2^31 has the value as its high word when it equals
  // 2 x m + 2^31: for m in [2^30, 2^31) (every normalized multiplier) d = 2m read as a signed word is 2m - 2^32
  // and a = x; for m below 2^30, d = 2m and a = 0. Exact for every x (against `smull`, two adds with carry, a
  // shift and an `orr` for the int64 form).
  // Rationale: on RV32 with the M extension, the same sum from `mul` and `mulh` of x and d: its high word, plus the
  // low word's top bit (the 2^31 added), plus a (6 instructions, against 9 for the int64 form: a 64-bit add with
  // its carry, two shifts and an `or`).
  CTATTN_ALWAYS_INLINE constexpr std::int32_t high_product(std::int32_t x) const noexcept {
#if defined(__ARM_FEATURE_DSP)
    if (!std::is_constant_evaluated()) return rounded_high_sum(x & normalized, x, doubled);
#elif CTATTN_DETAIL_RV32_MUL
    if (!std::is_constant_evaluated()) {
      const std::int64_t p = std::int64_t{x} * doubled;
      const auto low = static_cast<std::uint32_t>(p);
      const auto high = static_cast<std::uint32_t>(static_cast<std::uint64_t>(p) >> 32);
      return static_cast<std::int32_t>(high + (low >> 31) + static_cast<std::uint32_t>(x & normalized));
    }
#endif
    return doubling_high_product(x, multiplier);
  }

  // Rationale: on the DSP, a short multiplier's (`short_multiplier`: normalized, a right shift r of 1 to 22)
  // rounding shift and zero point are one saturating add and one `ssat` (with its shift where the shift is a
  // constant): floor((t + (2 zero + 1) 2^(r-1)) / 2^r) for t = h - (h < 0) is the rounded value plus the zero point;
  // where `qadd` saturates, |t + offset| passes 2^31 and the true output's magnitude 2^(31 - r) >= 512, clamped alike
  // (`arm_dsp_int8_ops::short_form`'s argument). 4 instructions an output against 7 with constants (the M7's int8
  // decoding step of the tiny llama, its residual sums and attention scores: -8,629 instructions a token with the
  // two changes beside it). The test and the constant are made here, in the run-time branch, so that constant
  // evaluation (the int8 sorter's proof runs this for each output) takes no step more.
  CTATTN_ALWAYS_INLINE constexpr std::int8_t operator()(std::int32_t accumulator) const noexcept {
#if defined(__ARM_FEATURE_SAT)
    if (!std::is_constant_evaluated()) {
#if defined(__ARM_FEATURE_DSP)
      if (normalized != 0 && static_cast<unsigned>(right - 1) < 22u) {
        const std::int32_t h = rounded_high_sum(accumulator, accumulator, doubled);
        const auto t = static_cast<std::int32_t>(static_cast<std::uint32_t>(h) - (static_cast<std::uint32_t>(h) >> 31));
        const auto offset =
            static_cast<std::int32_t>(static_cast<std::uint32_t>(2 * zero + 1) << static_cast<unsigned>(right - 1));
        return static_cast<std::int8_t>(signed_saturate<8>(__builtin_arm_qadd(t, offset) >> right));
      }
#endif
      return static_cast<std::int8_t>(signed_saturate<8>(signed_saturate<9>(scaled(accumulator)) + zero));
    }
#endif
    std::int32_t v = scaled(accumulator);
    v = v < -256 ? -256 : (v > 255 ? 255 : v);
    return saturate_int8(v + zero);
  }
};

/// Whether multiplier q is normalized (at least 2^30) and shifts to the right by 1 to 22: what a layer's scales
/// give in practice. The Cortex-M DSP requantizes by such a multiplier in 5 instructions, Helium without a left
/// shift; a layer keeps whether every multiplier of its is one (`int8_epilogue::short_multipliers`).
///
/// Example: `static_assert(ctattn::detail::kernels::short_multiplier({1 << 30, -1}));`
[[nodiscard]] constexpr bool short_multiplier(const math::quantized_multiplier& q) noexcept {
  return q.multiplier >= (1 << 30) && q.shift <= -1 && q.shift >= -22;
}

/// What the int8 product kernels add to each raw sum sum_t x[r][t] w[c][t] and how they requantize it:
/// y[r][c] = requantize(column_start[c] + row_start[r], the multiplier of c, zero), the additions modulo 2^32.
///
/// | member              | meaning                                                                   |
/// |---------------------|---------------------------------------------------------------------------|
/// | `column_start`      | N int32: a layer's folded bias, or a product's zero-point terms of each column |
/// | `row_start`         | M int32 when RowStarts (a product's zero-point term of each row of x), else unused |
/// | `multipliers`       | N of them when PerChannel, else one for every output                      |
/// | `zero`              | the output's zero point                                                   |
/// | `short_multipliers` | true only where every multiplier is a `short_multiplier`: a layer's fact, made with it |
template <bool PerChannel, bool RowStarts = false>
struct int8_epilogue {
  static constexpr bool per_channel = PerChannel;
  static constexpr bool row_starts = RowStarts;
  const std::int32_t* column_start;
  const std::int32_t* row_start;
  const math::quantized_multiplier* multipliers;
  std::int32_t zero;
  // Rationale: a layer's multipliers are known when it is made, so the test of each channel's multiplier is done
  // there once; the kernels that read it (the Cortex-M DSP's one-row passes, Helium's passes) skip the test or the
  // left shift of every output. False reads as "not known", never as "not every one".
  bool short_multipliers = false;

  /// column_start[c] + row_start[r], wrapping.
  CTATTN_ALWAYS_INLINE constexpr std::int32_t start(std::size_t r, std::size_t c) const noexcept {
    const auto column = static_cast<std::uint32_t>(column_start[c]);
    if constexpr (RowStarts) return static_cast<std::int32_t>(column + static_cast<std::uint32_t>(row_start[r]));
    return static_cast<std::int32_t>(column);
  }
  CTATTN_ALWAYS_INLINE constexpr const math::quantized_multiplier& multiplier(std::size_t c) const noexcept {
    return multipliers[PerChannel ? c : 0];
  }
  CTATTN_ALWAYS_INLINE constexpr output_requantizer requantizer(std::size_t c) const noexcept {
    return {multiplier(c).multiplier, multiplier(c).shift, zero};
  }
  /// The output of raw sum `sum` at (r, c).
  CTATTN_ALWAYS_INLINE constexpr std::int8_t operator()(std::size_t r, std::size_t c, std::int32_t sum) const noexcept {
    return requantizer(c)(
        static_cast<std::int32_t>(static_cast<std::uint32_t>(start(r, c)) + static_cast<std::uint32_t>(sum)));
  }
};

/// One output: `output_requantizer{multiplier, shift, zero}(accumulator)`.
CTATTN_ALWAYS_INLINE constexpr std::int8_t requantize_output(std::int32_t accumulator, std::int32_t multiplier,
                                                             int shift, std::int32_t zero) noexcept {
  return output_requantizer{multiplier, shift, zero}(accumulator);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_INT8_REQUANTIZE_HPP
