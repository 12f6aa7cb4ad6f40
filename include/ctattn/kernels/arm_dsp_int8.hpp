// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ARM_DSP_INT8_HPP
#define CTATTN_KERNELS_ARM_DSP_INT8_HPP

/// \file
/// The Cortex-M DSP extension's int8 backend (Cortex-M4, M7, M33 with DSP, M55): the int8 operations of
/// kernels/detail/int8_simd.hpp on 4 terms per step in one 32-bit register, through the ACLE intrinsics of
/// <arm_acle.h>:
///
/// | step                              | instruction | what it does                                               |
/// |-----------------------------------|-------------|------------------------------------------------------------|
/// | load 4 int8                       | `ldr`       | one word (unaligned loads are allowed on these cores)      |
/// | bytes 0 and 2, less the zero point| `sxtab16`   | sign-extends two bytes into 16-bit halves and adds -zero   |
/// | bytes 1 and 3, less the zero point| `sxtab16` with `ror #8` | the same for the odd bytes                     |
/// | multiply and add                  | `smlad`     | acc + x.lo y.lo + x.hi y.hi, two products per instruction  |
///
/// So 4 terms cost 2 loads, 4 extensions and 2 multiply-adds, against 4 loads each of a and b, 8 extensions and 4
/// multiply-adds in the scalar loop. Each byte less its zero point lies in [-255, 255], which a 16-bit half holds.
///
/// The product kernel (`product_requantized`, docs/kernels.md "The product kernels") widens up to 6 rows of x once
/// and runs each channel of w against all of them (21 instructions per 24 multiply-accumulates), then requantizes
/// each output in 5 instructions (`smmlar`, `qadd`, `ssat`). One row (a decoding step's) runs 4 channels a pass,
/// 8 terms a step where w is word-aligned (38 instructions per 32 multiply-accumulates), and requantizes them in the
/// same assembly block (`row_pass`: 14 instructions an output with the multiplier's test, 6 for one
/// multiplier of the whole tensor).
///
/// Built only where the compiler defines `__ARM_FEATURE_DSP` (-mcpu=cortex-m4, cortex-m7, cortex-m33, cortex-m55);
/// kernels/int8.hpp selects it where no wider backend (Helium) is selected. Tested on the target by the firmware
/// boards (docs/firmware.md): every int8 image compares its results with the compiler's, bit for bit.
///
/// Example: `ctattn::detail::arm_dsp_int8_ops::total(ctattn::detail::arm_dsp_int8_ops::zero()) == 0`.

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"

#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail {
/// The int8 product blocks of the DSP backend (`arm_dsp_int8_ops::product_requantized`), known on every target so
/// that footprints can bound them: at most `arm_dsp_block_rows` rows of x widened once per block, for rows of up to
/// `arm_dsp_widened_max_terms` terms.
inline constexpr std::size_t arm_dsp_block_rows = 6;
inline constexpr std::size_t arm_dsp_widened_max_terms = 256;
/// The stack bytes of the widened block for M rows of K terms: min(M, 6) rows of K rounded up to 4, in int16.
template <std::size_t M, std::size_t K>
inline constexpr std::size_t arm_dsp_product_scratch_bytes =
    K >= 1 && K <= arm_dsp_widened_max_terms
        ? (M < arm_dsp_block_rows ? M : arm_dsp_block_rows) * ((K + 3) / 4) * 4 * sizeof(std::int16_t)
        : 0;
}  // namespace ctattn::detail

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstdint>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  static constexpr bool reads_short_multipliers = true;  // `widened_row`'s passes skip each channel's test
  static constexpr bool has_row_sum = true;
  static constexpr std::size_t step = 4;
  static constexpr std::size_t rows_per_pass = 2;  // kernels/detail/ops_defaults.hpp says why
  /// -zero_point in both 16-bit halves.
  using offset = std::uint32_t;
  /// The even bytes (0, 2) and the odd bytes (1, 3), each widened to 16-bit halves less the zero point.
  struct widened {
    std::int32_t even;
    std::int32_t odd;
  };
  using accumulator = std::int32_t;

  static offset make_offset(std::int32_t zero_point) noexcept {
    return (static_cast<std::uint32_t>(-zero_point) & 0xFFFFu) * 0x10001u;
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, sizeof word);
    const auto offsets = std::bit_cast<std::int32_t>(zero_point);
    return {__sxtab16(offsets, std::bit_cast<std::int32_t>(word)), odd_bytes_less(offsets, word)};
  }
  static accumulator zero() noexcept { return 0; }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return __smlad(x.odd, y.odd, __smlad(x.even, y.even, sum));
  }
  static std::int32_t total(accumulator sum) noexcept { return sum; }

  static constexpr bool has_weighted_rows = true;
  /// The row widths and query counts `weighted_rows` takes: one query's weights over rows of 8 values (a decoding
  /// step's head of a small model; the kernel cases check that width).
  template <std::size_t D, std::size_t G>
  static constexpr bool weighted_rows_take = G == 1 && D == 8;
  /// sums[c] = sum_j (w[j] - w_zero)(v[j v_stride + c] - v_zero) for c < D, j < n (one query, G = 1): two passes
  /// over the rows, 4 values each, in one assembly loop a pass: the row's word of 4 values split into even and odd
  /// bytes (`sxtb16`) and multiplied by the weight in a 16-bit half (`smlabb`, `smlatb`: a bottom or a top half
  /// times it, added); the zero point's term v_zero sum_j (w[j] - w_zero), summed in the first pass, taken off at
  /// the end (the same int32 sums, wrapping alike).
  // Rationale: a decoding step's weighted values with heads of 8 (the stories260K-shaped model): one pass over the
  // 8 values held 8 sums, the weights' sum, 3 pointers, the stride and the zero point, and GCC 12 at -Os kept 5 of
  // them on the stack (28 instructions a key on the M7, QEMU trace); two passes of 4 sums take 13 registers and 25
  // instructions a key, against 35 for the portable loop, which subtracts the zero point from each value.
  template <std::size_t D, std::size_t G>
  static void weighted_rows(const std::int8_t* w, std::size_t w_stride, std::int32_t w_zero, const std::int8_t* v,
                            std::size_t v_stride, std::int32_t v_zero, std::size_t n, std::int32_t* sums,
                            std::size_t sums_stride) noexcept {
    static_assert(weighted_rows_take<D, G>);
    static_cast<void>(w_stride);
    static_cast<void>(sums_stride);
    std::int32_t total = 0;
    std::int32_t acc[D]{};
    if (n != 0) {
      const std::int8_t* const end = w + n;
#pragma GCC unroll 2
      for (std::size_t half = 0; half < D / 4; ++half) {
        const std::int8_t* wp = w;
        const std::int8_t* vp = v + 4 * half;
        std::int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, weight, word, even;
        asm volatile(
            "1:\n\t"
            "ldrsb %[weight], [%[wp]], #1\n\t"
            "ldr %[word], [%[vp]]\n\t"
            "sub %[weight], %[weight], %[wz]\n\t"
            "add %[vp], %[vp], %[stride]\n\t"
            ".if %c[first]\n\t"
            "add %[total], %[total], %[weight]\n\t"
            ".endif\n\t"
            "sxtb16 %[even], %[word]\n\t"
            "sxtb16 %[word], %[word], ror #8\n\t"
            "smlabb %[a0], %[weight], %[even], %[a0]\n\t"
            "smlatb %[a2], %[even], %[weight], %[a2]\n\t"
            "smlabb %[a1], %[weight], %[word], %[a1]\n\t"
            "smlatb %[a3], %[word], %[weight], %[a3]\n\t"
            "cmp %[wp], %[end]\n\t"
            "bne 1b\n\t"
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [wp] "+r"(wp), [vp] "+r"(vp),
              [total] "+r"(total), [weight] "=&r"(weight), [word] "=&r"(word), [even] "=&r"(even)
            : [end] "r"(end), [wz] "r"(w_zero), [stride] "r"(v_stride), [first] "n"(half == 0 ? 1 : 0)
            : "cc", "memory");
        acc[4 * half] = a0;
        acc[4 * half + 1] = a1;
        acc[4 * half + 2] = a2;
        acc[4 * half + 3] = a3;
      }
    }
    const auto offset = static_cast<std::uint32_t>(v_zero) * static_cast<std::uint32_t>(total);
#pragma GCC unroll 8
    for (std::size_t c = 0; c < D; ++c) {
      sums[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[c]) - offset);
    }
  }

  static constexpr bool has_sum_and_squares = true;
  /// sum_t p[t] and sum_t p[t]^2 for t < K (the int8 LayerNorm's S1 and S2): per word its even and odd bytes in
  /// 16-bit halves (`sxtb16`), each pair of halves added into S1 (`smlad` by 1 and 1) and squared into S2 (`smlad`
  /// of the pair with itself); the last K % 4 bytes one by one.
  // Rationale: an RMSNorm row of a decoding step (11 rows of 64 values a token in the stories260K-shaped model): 7
  // instructions per 4 values with the loop's, against 5 a value for the portable loop on a M7 (GCC 12 -Os).
  template <std::size_t K>
  static void sum_and_squares(const std::int8_t* p, std::int32_t& sum, std::int32_t& squares) noexcept {
    constexpr std::size_t whole = K - K % step;
    constexpr std::int32_t ones = 0x00010001;
    std::int32_t s1 = 0;
    std::int32_t s2 = 0;
    for (std::size_t t = 0; t < whole; t += step) {
      const std::uint32_t word = load_word(p + t);
      const std::int32_t even = even_bytes(word);
      const std::int32_t odd = odd_bytes(word);
      s1 = __smlad(odd, ones, __smlad(even, ones, s1));
      s2 = __smlad(odd, odd, __smlad(even, even, s2));
    }
    for (std::size_t t = whole; t < K; ++t) {
      s1 += p[t];
      s2 += std::int32_t{p[t]} * p[t];
    }
    sum = s1;
    squares = s2;
  }

  static constexpr bool has_layer_norm_row = true;
  /// 33 without reading the shifts: `layer_norm_row` tests each shift as it goes and leaves a row with one below 33
  /// to the portable form (kernels/int8.hpp's `backend_layer_norm_shift`).
  // Rationale: a scan of the layer's C shifts at every row (a decoding step's) took about 4 instructions a shift on
  // the M7, a third of what the row saves; the test in the row's loop takes 1.
  template <std::size_t C>
  static std::int32_t layer_norm_smallest_shift(const std::int32_t* shift) noexcept {
    static_cast<void>(shift);
    return 33;
  }
  /// kernels/int8.hpp's `int8_layer_norm_row_at_run_time` (steps 4 to 7 of quantized/norm.hpp's rationale) for a
  /// row of C values in one assembly loop, the same bits, where it takes the row (true): the layer's multipliers,
  /// shifts and biases back to back (a `qlayer_norm`'s), C at most 512, every shift 33 or more (tested as each is
  /// read: a row with a smaller one returns false before x is read further, leaving y's first values written, so the
  /// caller's portable form writes the whole row again from x, which must not be y), and step 4's shift d at least 33
  /// or |N_j| 2^(32 - d) within 32 bits (d >= bit_width(255 C)).
  ///
  /// | step                          | instructions (per value)                                          |
  /// |-------------------------------|-------------------------------------------------------------------|
  /// | s_j - 33, its test            | `ldr`, `subs`, `bmi`                                              |
  /// | N_j = C q_j - S1, |N_j|       | `ldrsb`, `rsb` (C a power of 2; else `mul`, `sub`), `eor`, `sub`  |
  /// | 4: n_j = round(|N_j| I / 2^d) | `lsl` by 32 - d, `umull`, `add` of the low word's top bit; or for d >= 33 `umull`, `lsr` by d - 33, `add`, `lsr` |
  /// | 5, 6: round(n_j |m_j| / 2^s_j)| `ldr`, `eor` (the sign), `asr`, `eor`, `sub` (|m_j|), `umull`, `lsr` by s_j - 33, `add`, `lsr` |
  /// | sign, + b_j, held             | `eor`, `sub`; `ldr`, `qadd`, `ssat` to 31 bits                    |
  /// | 7: round(A_j / 2^16) + z      | `add`, `add` (A_j's sign), `ssat` by 16 to 8 bits, `strb`          |
  // Rationale: the portable form took 42 instructions a value on the M7 with GCC 12 -Os (its constants spilled
  // around the loop; the stories260K-shaped model's int8 step: 11 rows of 64 a token); here 30 (`layer_norm_row` on
  // Helium gives the steps' arithmetic). The 14 registers: 4 pointers and the end, 5 constants, 4 temporaries.
  template <std::size_t C>
  static bool layer_norm_row(const std::int8_t* x, std::int8_t* y, std::int32_t sum, std::uint32_t inverse, int down,
                             const std::int32_t* multiplier, const std::int32_t* shift, const std::int32_t* bias,
                             std::int32_t out_zero, bool above_32) noexcept {
    static_cast<void>(above_32);
    constexpr int magnitude_bits = std::bit_width(255u * C);
    const bool narrow = down >= magnitude_bits && down <= 32;
    if constexpr (C > 512) {
      return false;
    } else {
      if ((!narrow && down < 33) || shift != multiplier + C || bias != shift + C ||
          static_cast<const void*>(x) == static_cast<const void*>(y)) {
        return false;
      }
      const std::int32_t last_rounding = (1 << 15) + out_zero * (1 << 16);
      const std::int32_t* p = multiplier;
      const std::int8_t* const end = x + C;
      std::int32_t a, low, high, s, t;
      const auto c = static_cast<std::int32_t>(C);
      constexpr bool power_of_two = std::has_single_bit(C);
      constexpr int log2_c = std::bit_width(C) - 1;
// The row's loop, step 4 by Step4.
#define CTATTN_DETAIL_NORM_ROW(STEP4)          \
  "1:\n\t"                                     \
  "ldr %[s], [%[p], #%c[shifts]]\n\t"          \
  "subs %[s], %[s], #33\n\t"                   \
  "bmi 2f\n\t"                                 \
  "ldrsb %[a], [%[x]], #1\n\t"                 \
  ".if %c[pow2]\n\t"                           \
  "rsb %[a], %[sum], %[a], lsl #%c[log2c]\n\t" \
  ".else\n\t"                                  \
  "mul %[a], %[a], %[c]\n\t"                   \
  "sub %[a], %[a], %[sum]\n\t"                 \
  ".endif\n\t"                                 \
  "eor %[lo], %[a], %[a], asr #31\n\t"         \
  "sub %[lo], %[lo], %[a], asr #31\n\t" STEP4  \
  "ldr %[lo], [%[p]], #4\n\t"                  \
  "eor %[a], %[a], %[lo]\n\t"                  \
  "asr %[t], %[lo], #31\n\t"                   \
  "eor %[lo], %[lo], %[t]\n\t"                 \
  "sub %[lo], %[lo], %[t]\n\t"                 \
  "umull %[lo], %[hi], %[hi], %[lo]\n\t"       \
  "lsr %[hi], %[hi], %[s]\n\t"                 \
  "add %[hi], %[hi], #1\n\t"                   \
  "lsr %[hi], %[hi], #1\n\t"                   \
  "eor %[hi], %[hi], %[a], asr #31\n\t"        \
  "sub %[hi], %[hi], %[a], asr #31\n\t"        \
  "ldr %[t], [%[p], #(%c[biases] - 4)]\n\t"    \
  "qadd %[hi], %[hi], %[t]\n\t"                \
  "ssat %[hi], #31, %[hi]\n\t"                 \
  "add %[t], %[hi], %[r]\n\t"                  \
  "add %[t], %[t], %[hi], asr #31\n\t"         \
  "ssat %[t], #8, %[t], asr #16\n\t"           \
  "strb %[t], [%[y]], #1\n\t"                  \
  "cmp %[x], %[end]\n\t"                       \
  "bne 1b\n\t"                                 \
  "2:\n\t"
      const std::int32_t k = narrow ? 32 - down : down - 33;  // step 4's shift: left, or right of the high word
#define CTATTN_DETAIL_NORM_OPERANDS                                                                       \
  : [x] "+r"(x), [y] "+r"(y), [p] "+r"(p), [a] "=&r"(a), [lo] "=&r"(low), [hi] "=&r"(high), [s] "=&r"(s),          \
    [t] "=&r"(t)                                                                                                    \
  : [end] "r"(end), [sum] "r"(sum), [inv] "r"(inverse), [k] "r"(k), [r] "r"(last_rounding), [c] "r"(c),            \
    [shifts] "n"(4 * C), [biases] "n"(8 * C), [pow2] "n"(power_of_two ? 1 : 0), [log2c] "n"(log2_c)                \
  : "cc", "memory"
      if (narrow) {
        asm volatile(
            CTATTN_DETAIL_NORM_ROW("lsl %[lo], %[lo], %[k]\n\t"
                                   "umull %[lo], %[hi], %[lo], %[inv]\n\t"
                                   "add %[hi], %[hi], %[lo], lsr #31\n\t") CTATTN_DETAIL_NORM_OPERANDS);
      } else {
        asm volatile(
            CTATTN_DETAIL_NORM_ROW("umull %[lo], %[hi], %[lo], %[inv]\n\t"
                                   "lsr %[hi], %[hi], %[k]\n\t"
                                   "add %[hi], %[hi], #1\n\t"
                                   "lsr %[hi], %[hi], #1\n\t") CTATTN_DETAIL_NORM_OPERANDS);
      }
#undef CTATTN_DETAIL_NORM_OPERANDS
#undef CTATTN_DETAIL_NORM_ROW
      return x == end;
    }
  }

  static constexpr bool has_rotate_heads = true;
  /// The heads `rotate_heads` takes: whole words of pairs, HeadDim a multiple of 4 with interleaved pairs, of 8 with
  /// split halves.
  template <std::size_t HeadDim, bool Interleaved>
  static constexpr bool rotate_heads_take = HeadDim >= 4 && HeadDim % (Interleaved ? 4 : 8) == 0;
  /// kernels/int8.hpp's `int8_rotate_heads` at run time, a word of each head at a time: its bytes less the zero
  /// point in 16-bit halves (`sxtab16`), paired (a, b) by `pkhbt`/`pkhtb`, each pair's a c - b s and a s + b c by one
  /// dual multiply against (c, s) (`smlsd`, `smladx`) that also adds the rounding constant 2^14 + zero 2^15, and
  /// `ssat` with its shift by 15: 2 instructions an output (`q15_requantize`'s bits).
  // Rationale: a decoding step rotates its query and key heads (96 pairs a layer in the stories260K-shaped model):
  // 33 instructions a pair in the portable loop on a M7 with GCC 12 -Os (its clamps by comparisons), 9 here.
  template <std::size_t HeadDim, bool Interleaved>
  static void rotate_heads(std::int8_t* row, std::size_t heads, const std::int16_t* cos, const std::int16_t* sin,
                           std::int32_t zero) noexcept {
    static_assert(rotate_heads_take<HeadDim, Interleaved>);
    constexpr std::size_t pairs = HeadDim / 2;
    std::int32_t turn[pairs];  // (c_p, s_p) in a word's halves, once for every head
    for (std::size_t p = 0; p < pairs; ++p) turn[p] = pack_bottoms(cos[p], sin[p]);
    const auto offsets = std::bit_cast<std::int32_t>(make_offset(zero));
    const std::int32_t rounding = (std::int32_t{1} << 14) + zero * (std::int32_t{1} << 15);
    const auto rotate = [&](std::int8_t* head, std::int32_t pair, std::size_t p, std::size_t i, std::size_t j) {
      rotate_pair(head + i, head + j, pair, turn[p], rounding);
    };
    for (std::size_t h = 0; h < heads; ++h, row += HeadDim) {
      if constexpr (Interleaved) {
#pragma GCC unroll 4
        for (std::size_t q = 0; q < HeadDim / 4; ++q) {  // bytes a0 b0 a1 b1: pairs 2q and 2q + 1
          const std::uint32_t word = load_word(row + 4 * q);
          const std::int32_t firsts = __sxtab16(offsets, std::bit_cast<std::int32_t>(word));
          const std::int32_t seconds = odd_bytes_less(offsets, word);
          rotate(row, pack_bottoms(firsts, seconds), 2 * q, 4 * q, 4 * q + 1);
          rotate(row, pack_tops(firsts, seconds), 2 * q + 1, 4 * q + 2, 4 * q + 3);
        }
      } else {
#pragma GCC unroll 4
        for (std::size_t q = 0; q < pairs / 4; ++q) {  // a_4q .. a_4q+3 and b_4q .. b_4q+3
          const std::uint32_t a = load_word(row + 4 * q);
          const std::uint32_t b = load_word(row + pairs + 4 * q);
          const std::int32_t a_even = __sxtab16(offsets, std::bit_cast<std::int32_t>(a));
          const std::int32_t b_even = __sxtab16(offsets, std::bit_cast<std::int32_t>(b));
          const std::int32_t a_odd = odd_bytes_less(offsets, a);
          const std::int32_t b_odd = odd_bytes_less(offsets, b);
          rotate(row, pack_bottoms(a_even, b_even), 4 * q, 4 * q, pairs + 4 * q);
          rotate(row, pack_bottoms(a_odd, b_odd), 4 * q + 1, 4 * q + 1, pairs + 4 * q + 1);
          rotate(row, pack_tops(a_even, b_even), 4 * q + 2, 4 * q + 2, pairs + 4 * q + 2);
          rotate(row, pack_tops(a_odd, b_odd), 4 * q + 3, 4 * q + 3, pairs + 4 * q + 3);
        }
      }
    }
  }
  /// The pair (a, b) in pair's halves rotated by (c, s) in turn's, each output rounded with `rounding` added and
  /// shifted by 15, stored at first and second.
  CTATTN_ALWAYS_INLINE static void rotate_pair(std::int8_t* first, std::int8_t* second, std::int32_t pair,
                                               std::int32_t turn, std::int32_t rounding) noexcept {
    *first = static_cast<std::int8_t>(kernels::signed_saturate<8>(__smlsd(pair, turn, rounding) >> 15));
    *second = static_cast<std::int8_t>(kernels::signed_saturate<8>(__smladx(pair, turn, rounding) >> 15));
  }
  /// The bottom halves of x and y as one word's bottom and top (`pkhbt`).
  static std::int32_t pack_bottoms(std::int32_t x, std::int32_t y) noexcept {
    std::int32_t packed;
    asm("pkhbt %0, %1, %2, lsl #16" : "=r"(packed) : "r"(x), "r"(y));
    return packed;
  }
  /// The top halves of x and y as one word's bottom and top (`pkhtb`).
  static std::int32_t pack_tops(std::int32_t x, std::int32_t y) noexcept {
    std::int32_t packed;
    asm("pkhtb %0, %1, %2, asr #16" : "=r"(packed) : "r"(y), "r"(x));
    return packed;
  }

  static constexpr bool has_multiply = true;
  /// Whether `multiply` takes the multiplier M: a `short_multiplier` (normalized, a right shift of 1 to 22).
  static constexpr bool multiply_takes(math::quantized_multiplier m) noexcept { return kernels::short_multiplier(m); }
  /// kernels/int8.hpp's `int8_multiply_rows` at run time over n elements, 4 a step: each operand's word split into
  /// its even and odd bytes less the zero point (`sxtab16`), the 4 products taken by halves (`smulbb`, `smultt`:
  /// |a - a_zero| |b - b_zero| <= 255^2) and requantized by `short_form`; the last n % 4 one by one.
  // Rationale: the gated feed-forward's product of a decoding step (172 elements a layer in the stories260K-shaped
  // model): about 9 instructions an element against 16 for the portable loop on a M7 (GCC 12 -Os; QEMU trace: the
  // function they inline into, 33,900 -> 28,100 instructions a token for its 860 elements).
  template <math::quantized_multiplier M>
    requires(multiply_takes(M))
  static void multiply(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                       std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
    const auto a_offset = std::bit_cast<std::int32_t>(make_offset(a_zero));
    const auto b_offset = std::bit_cast<std::int32_t>(make_offset(b_zero));
    constexpr auto doubled = static_cast<std::int32_t>(static_cast<std::uint32_t>(M.multiplier) << 1);
    constexpr int right = -M.shift;
    const auto offset = static_cast<std::int32_t>(static_cast<std::uint32_t>(2 * out_zero + 1) << (right - 1));
    std::size_t i = 0;
    for (; i + step <= n; i += step) {
      const std::uint32_t wa = load_word(a + i);
      const std::uint32_t wb = load_word(b + i);
      const std::int32_t a_even = __sxtab16(a_offset, std::bit_cast<std::int32_t>(wa));
      const std::int32_t b_even = __sxtab16(b_offset, std::bit_cast<std::int32_t>(wb));
      const std::int32_t a_odd = odd_bytes_less(a_offset, wa);
      const std::int32_t b_odd = odd_bytes_less(b_offset, wb);
      // Rationale: the halves' products written out, which GCC 12 makes `smulbb` and `smultt` (its <arm_acle.h> has
      // no intrinsic for them).
      const auto bottom = [](std::int32_t x, std::int32_t y) {
        return std::int32_t{static_cast<std::int16_t>(x)} * static_cast<std::int16_t>(y);
      };
      const auto top = [](std::int32_t x, std::int32_t y) { return (x >> 16) * (y >> 16); };
      out[i] = short_form(bottom(a_even, b_even), doubled, offset, right);
      out[i + 1] = short_form(bottom(a_odd, b_odd), doubled, offset, right);
      out[i + 2] = short_form(top(a_even, b_even), doubled, offset, right);
      out[i + 3] = short_form(top(a_odd, b_odd), doubled, offset, right);
    }
    for (; i < n; ++i) {
      out[i] = short_form((std::int32_t{a[i]} - a_zero) * (std::int32_t{b[i]} - b_zero), doubled, offset, right);
    }
  }

  /// Rows of x and channels of w a fully-connected tile computes: each widened word of x serves `tile_channels`
  /// channels, each widened word of w `tile_rows` rows.
  // Rationale: 2 x 2 accumulators, two rows' widened words (4 registers) and one channel's (2) leave the pointers
  // and the loop counter within the 13 general registers, so that nothing spills; per 4 terms of 4 outputs it
  // takes 4 loads, 8 extensions and 8 `smlad`: 1.25 instructions per multiply-accumulate, against 1.6 for one row
  // against two channels.
  static constexpr std::size_t tile_rows = 2;
  static constexpr std::size_t tile_channels = 2;

  /// Bytes 1 and 3 of a word sign-extended into two 16-bit halves: `sxtb16` with its own rotation.
  // Rationale: the ACLE has no rotating form, and GCC 12 does not fold a rotation into `__sxtb16` (one `ror` more
  // per word).
  static std::int32_t odd_bytes(std::uint32_t word) noexcept {
    std::int32_t halves;
    asm("sxtb16 %0, %1, ror #8" : "=r"(halves) : "r"(word));
    return halves;
  }
  static std::int32_t even_bytes(std::uint32_t word) noexcept { return __sxtb16(std::bit_cast<std::int32_t>(word)); }
  /// `odd_bytes` with the halves of offset added (`sxtab16` with its rotation): bytes 1 and 3 less a zero point.
  static std::int32_t odd_bytes_less(std::int32_t offset, std::uint32_t word) noexcept {
    std::int32_t halves;
    asm("sxtab16 %0, %1, %2, ror #8" : "=r"(halves) : "r"(offset), "r"(word));
    return halves;
  }
  static std::uint32_t load_word(const std::int8_t* p) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, sizeof word);
    return word;
  }

  /// sum_t p[t] for t < K: per word, `sxtab16` adds the even bytes and (rotated) the odd ones into 16-bit halves,
  /// 3 instructions per 4 bytes; the four halves are added at the end.
  // Rationale: each half adds at most K / 4 bytes of magnitude 128 or less, so it cannot overflow while K <= 1024;
  // longer rows take the loop.
  template <std::size_t K>
  static std::int32_t row_sum(const std::int8_t* p) noexcept {
    constexpr std::size_t whole = K - K % step;
    std::int32_t sum = 0;
    if constexpr (K <= 1024) {
      std::int32_t even = 0;
      std::int32_t odd = 0;
      for (std::size_t t = 0; t < whole; t += step) {
        const std::uint32_t word = load_word(p + t);
        even = __sxtab16(even, std::bit_cast<std::int32_t>(word));
        odd = __sxtab16(odd, std::bit_cast<std::int32_t>(std::rotr(word, 8)));
      }
      const auto half = [](std::int32_t v, int which) {
        return static_cast<std::int32_t>(static_cast<std::int16_t>(static_cast<std::uint32_t>(v) >> (16 * which)));
      };
      sum = half(even, 0) + half(even, 1) + half(odd, 0) + half(odd, 1);
    } else {
      for (std::size_t t = 0; t < whole; ++t) sum += p[t];
    }
    for (std::size_t t = whole; t < K; ++t) sum += p[t];
    return sum;
  }

  /// The R x C outputs of rows r0.. of x and channels c0.. of w (K terms each; rows XS and WS bytes apart): their
  /// raw sums, then the epilogue e (y's rows YS apart).
  // Rationale: always inlined with its accumulators in local variables, so that they stay in registers for the whole
  // loop (by reference, -Os loads and stores each one per step).
  template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R, std::size_t C,
            typename Epilogue>
  CTATTN_ALWAYS_INLINE static void tile(const std::int8_t* x, const std::int8_t* w, std::size_t r0, std::size_t c0,
                                        Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t whole = K - K % step;
    std::int32_t sums[R][C];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (std::size_t c = 0; c < C; ++c) sums[r][c] = e.start(r0 + r, c0 + c);
    }
    if constexpr (R == 2 && C == 2 && whole > 0) {
      two_by_two<K, XS, WS>(x, w, whole / step, sums);
    } else {
      body<XS, WS, R, C>(x, w, whole, sums);
    }
    if constexpr (whole < K) {
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (std::size_t c = 0; c < C; ++c) {
          for (std::size_t t = whole; t < K; ++t) sums[r][c] += std::int32_t{x[r * XS + t]} * w[c * WS + t];
        }
      }
    }
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) {
      const kernels::output_requantizer requantize = e.requantizer(c0 + c);
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) y[r * YS + c] = requantize(sums[r][c]);
    }
  }

  /// The whole steps of a tile in C++: each row's word widened once for the C channels.
  template <std::size_t XS, std::size_t WS, std::size_t R, std::size_t C>
  CTATTN_ALWAYS_INLINE static void body(const std::int8_t* x, const std::int8_t* w, std::size_t whole,
                                        std::int32_t (&sums)[R][C]) noexcept {
    for (std::size_t t = 0; t < whole; t += step) {
      std::int32_t even[R];
      std::int32_t odd[R];
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t word = load_word(x + r * XS + t);
        even[r] = even_bytes(word);
        odd[r] = odd_bytes(word);
      }
#pragma GCC unroll 4
      for (std::size_t c = 0; c < C; ++c) {
        const std::uint32_t word = load_word(w + c * WS + t);
        const std::int32_t w_even = even_bytes(word);
        const std::int32_t w_odd = odd_bytes(word);
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) sums[r][c] = __smlad(odd[r], w_odd, __smlad(even[r], w_even, sums[r][c]));
      }
    }
  }

  /// `steps` whole steps of 4 terms for two rows at x (XS bytes apart) and two channels at w (WS apart): 20 instructions
  /// per 16 multiply-accumulates and 2 for the loop.
  // Rationale: written in assembly because the loop needs 13 registers (4 accumulators, 4 widened halves of x, 2
  // of w, 2 pointers and the count), exactly what the core has, and GCC 12 at -Os spills 5 of them to the stack
  // (38 instructions a step instead of 22); the steps are those of `body`, whose C++ form the other tiles use.
  template <std::size_t K, std::size_t XS, std::size_t WS>
  CTATTN_ALWAYS_INLINE static void two_by_two(const std::int8_t* x, const std::int8_t* w, std::size_t steps,
                                              std::int32_t (&sums)[2][2]) noexcept {
    static_assert(XS <= 4095 && WS >= 4 && WS - 4 <= 4095, "two rows' words are one immediate offset apart");
    std::int32_t s00 = sums[0][0], s01 = sums[0][1], s10 = sums[1][0], s11 = sums[1][1];
    std::int32_t x0_even, x0_odd, x1_even, x1_odd, w_even, w_odd;
    // Two steps per iteration where the count is even (a loop branch less per step).
    constexpr bool pairs = (K / step) % 2 == 0;
    steps = pairs ? steps / 2 : steps;
    asm volatile(
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldr %[x1e], [%[x], #%c[row]]\n\t"
        "ldr %[x0e], [%[x]], #4\n\t"
        "sxtb16 %[x0o], %[x0e], ror #8\n\t"
        "sxtb16 %[x0e], %[x0e]\n\t"
        "sxtb16 %[x1o], %[x1e], ror #8\n\t"
        "sxtb16 %[x1e], %[x1e]\n\t"
        "ldr %[we], [%[w]], #4\n\t"
        "sxtb16 %[wo], %[we], ror #8\n\t"
        "sxtb16 %[we], %[we]\n\t"
        "smlad %[s00], %[x0e], %[we], %[s00]\n\t"
        "smlad %[s00], %[x0o], %[wo], %[s00]\n\t"
        "smlad %[s10], %[x1e], %[we], %[s10]\n\t"
        "smlad %[s10], %[x1o], %[wo], %[s10]\n\t"
        "ldr %[we], [%[w], #%c[next]]\n\t"
        "sxtb16 %[wo], %[we], ror #8\n\t"
        "sxtb16 %[we], %[we]\n\t"
        "smlad %[s01], %[x0e], %[we], %[s01]\n\t"
        "smlad %[s01], %[x0o], %[wo], %[s01]\n\t"
        "smlad %[s11], %[x1e], %[we], %[s11]\n\t"
        "smlad %[s11], %[x1o], %[wo], %[s11]\n\t"
        ".endr\n\t"
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [x] "+r"(x), [w] "+r"(w),
          [steps] "+r"(steps), [x0e] "=&r"(x0_even), [x0o] "=&r"(x0_odd), [x1e] "=&r"(x1_even), [x1o] "=&r"(x1_odd),
          [we] "=&r"(w_even), [wo] "=&r"(w_odd)
        : [row] "n"(XS), [next] "n"(WS - 4), [unroll] "n"(pairs ? 2 : 1)
        : "cc", "memory");
    sums[0][0] = s00;
    sums[0][1] = s01;
    sums[1][0] = s10;
    sums[1][1] = s11;
  }

  /// The most rows of x one widened block holds: each word of w, loaded and widened once, serves all of them.
  // Rationale: 6 accumulators, one channel's widened word (2 registers), one row's pair of widened words (2, by
  // `ldrd`), the two pointers and the count are 13 registers, what the core has. Per 4 terms of 6 outputs: 1 load
  // and 2 extensions of w, 6 `ldrd` and 12 `smlad`, 21 instructions for 24 multiply-accumulates (0.875 each,
  // against 1.25 for the 2 x 2 tile that widens both operands in its loop).
  static constexpr std::size_t block_rows = arm_dsp_block_rows;
  /// The longest rows (K) the widened blocks take: a block's widened rows, block_rows * K * 2 bytes, are on the
  /// stack (3 KiB at most, `arm_dsp_product_scratch_bytes`); longer rows take the 2 x 2 tiles.
  static constexpr std::size_t widened_max_terms = arm_dsp_widened_max_terms;
  /// Whether a product of K terms takes the widened blocks.
  template <std::size_t K>
  static constexpr bool widens = K >= 1 && K <= widened_max_terms;

  /// The K % 4 bytes at p after the whole steps, in the low bytes of a word (the rest 0).
  template <std::size_t K>
  static std::uint32_t load_tail(const std::int8_t* p) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, K % step);
    return word;
  }

  /// R rows of x (XS bytes apart) widened into `out` in the order the block's loop reads them: for each step of 4
  /// terms, row by row, the even bytes' halves then the odd bytes'; a last step of K % 4 terms padded with zeros.
  template <std::size_t K, std::size_t XS, std::size_t R>
  // Rationale: one row (a decoding step's) in a loop of 6 instructions a word (`ldr` and `strd` with their
  // increments, the test at the foot): GCC 12 at -Os indexed it, tested at the head and branched back (9). x is
  // read by `ldr`, which takes any alignment; xw is the caller's aligned array.
  CTATTN_ALWAYS_INLINE static void widen_rows(const std::int8_t* x, std::int32_t* out) noexcept {
    if constexpr (R == 1) {
      if constexpr (K >= step) {
        const std::int8_t* const end = x + (K - K % step);
        std::uint32_t word;
        std::int32_t even, odd;
        asm volatile(
            "1:\n\t"
            "ldr %[word], [%[x]], #4\n\t"
            "sxtb16 %[even], %[word]\n\t"
            "sxtb16 %[odd], %[word], ror #8\n\t"
            "strd %[even], %[odd], [%[out]], #8\n\t"
            "cmp %[x], %[end]\n\t"
            "bne 1b\n\t"
            : [x] "+r"(x), [out] "+r"(out), [word] "=&r"(word), [even] "=&r"(even), [odd] "=&r"(odd)
            : [end] "r"(end)
            : "cc", "memory");
      }
      if constexpr (K % step != 0) {
        const std::uint32_t word = load_tail<K>(x);
        out[0] = even_bytes(word);
        out[1] = odd_bytes(word);
      }
      return;
    }
    for (std::size_t t = 0; t + step <= K; t += step) {
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t word = load_word(x + r * XS + t);
        out[0] = even_bytes(word);
        out[1] = odd_bytes(word);
        out += 2;
      }
    }
    if constexpr (K % step != 0) {
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t word = load_tail<K>(x + r * XS + K - K % step);
        out[0] = even_bytes(word);
        out[1] = odd_bytes(word);
        out += 2;
      }
    }
  }

  /// The raw sums of R <= 6 widened rows at xw (`widen_rows`) against one channel at w, K terms, added to s.
  // Rationale: in assembly for the reason `two_by_two` gives; the rows past R are left out by the assembler
  // (`.if`), their accumulators unused. The K % 4 terms left are one more step in C++, w's bytes read one by one
  // (a whole word could reach past the end of w) against x's zero padding.
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void block_column(const std::int32_t* xw, const std::int8_t* w,
                                                std::int32_t (&s)[block_rows]) noexcept {
    static_assert(R >= 1 && R <= block_rows);
    if constexpr (K >= step) block_steps<K, R>(xw, w, s);
    if constexpr (K % step != 0) {
      xw += K / step * R * 2;
      const std::uint32_t word = load_tail<K>(w + K - K % step);
      const std::int32_t w_even = even_bytes(word);
      const std::int32_t w_odd = odd_bytes(word);
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) s[r] = __smlad(xw[2 * r + 1], w_odd, __smlad(xw[2 * r], w_even, s[r]));
    }
  }

  /// The whole steps of `block_column` (K >= 4).
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void block_steps(const std::int32_t* xw, const std::int8_t* w,
                                               std::int32_t (&s)[block_rows]) noexcept {
    constexpr bool pairs = (K / step) % 2 == 0;
    std::size_t steps = pairs ? K / step / 2 : K / step;
    std::int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5];
    std::int32_t w_even, w_odd, x_even, x_odd;
    asm volatile(
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldr %[we], [%[w]], #4\n\t"
        "sxtb16 %[wo], %[we], ror #8\n\t"
        "sxtb16 %[we], %[we]\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s0], %[xe], %[we], %[s0]\n\t"
        "smlad %[s0], %[xo], %[wo], %[s0]\n\t"
        ".if %c[rows] > 1\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s1], %[xe], %[we], %[s1]\n\t"
        "smlad %[s1], %[xo], %[wo], %[s1]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 2\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s2], %[xe], %[we], %[s2]\n\t"
        "smlad %[s2], %[xo], %[wo], %[s2]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 3\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s3], %[xe], %[we], %[s3]\n\t"
        "smlad %[s3], %[xo], %[wo], %[s3]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 4\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s4], %[xe], %[we], %[s4]\n\t"
        "smlad %[s4], %[xo], %[wo], %[s4]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 5\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s5], %[xe], %[we], %[s5]\n\t"
        "smlad %[s5], %[xo], %[wo], %[s5]\n\t"
        ".endif\n\t"
        ".endr\n\t"
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [x] "+r"(xw),
          [w] "+r"(w), [steps] "+r"(steps), [we] "=&r"(w_even), [wo] "=&r"(w_odd), [xe] "=&r"(x_even), [xo] "=&r"(x_odd)
        : [rows] "n"(R), [unroll] "n"(pairs ? 2 : 1)
        : "cc", "memory");
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    s[4] = s4;
    s[5] = s5;
  }

  /// Channels of w one pass of `widened_row` runs against the single widened row of x.
  // Rationale: one row has no second row to share a widened word of w with, so each widened word of x (one `ldrd`)
  // serves 4 channels instead: per 4 terms, 1 `ldrd` and per channel 1 `ldr`, 2 extensions and 2 `smlad`, 21
  // instructions for 16 multiply-accumulates (1.31 each, against 1.5 and a channel's requantization per pass for
  // a block of one row); 8 terms a step, 1.19 (`row_pass`'s requantizing forms): 4 accumulators, 6 operands, a
  // temporary, 2 pointers and the count, 14 registers (r0 to r12 and lr).
  static constexpr std::size_t row_channels = 4;
  /// Whether `widened_row` takes rows of K terms against channels WS bytes apart: its 4 channels are read at
  /// immediate offsets from one pointer, at most 4095 bytes.
  template <std::size_t K, std::size_t WS>
  static constexpr bool row_pass_fits = K >= step && (row_channels - 1) * WS <= 4095;
  /// Whether `row_pass` takes them 8 terms a step (its requantizing forms): whole steps, and channels a whole
  /// number of words apart within `ldrd`'s reach (1020 bytes); w itself must be word-aligned, which `widened_row`
  /// tests.
  template <std::size_t K, std::size_t WS>
  static constexpr bool row_pass_wide_fits =
      K >= step && K % step == 0 && WS % 4 == 0 && (row_channels - 1) * WS <= 1020;

  /// What `row_pass` reads after its sums, one pass at a time: the output, and per channel the pass's
  /// first multiplier, 2 zero + 1 and whether every multiplier of the layer is a `short_multiplier`, or for one
  /// multiplier of the whole tensor its three constants.
  struct pass_requantization {
    const math::quantized_multiplier* multipliers = nullptr;
    std::int8_t* y = nullptr;
    std::int32_t odd_zero = 1;  // 2 zero + 1
    bool every_short = false;   // per channel: every multiplier of the layer is a `short_multiplier`
    std::int32_t doubled = 0;   // per tensor: the multiplier times 2, read as a signed word
    std::int32_t offset = 0;    // per tensor: (2 zero + 1) 2^(right - 1)
    std::int32_t less = 0;      // per tensor: right - 1
  };

  /// What a pass of `row_pass` leaves: its 4 raw sums (start included), or its 4 outputs requantized with each
  /// channel's multiplier or with one multiplier for the tensor.
  enum class pass_output { sums, per_channel, per_tensor };

  /// One widened row at xw (`widen_rows` with R = 1) against the 4 channels at w, WS bytes apart, K / 4 whole steps
  /// of 4 terms, added to s. Output `sums` leaves the sums in s (one word of each channel's w a step, p unread);
  /// the other two run 8 terms a step (two words of each channel's w by one `ldrd`: w word-aligned,
  /// `row_pass_wide_fits`) and requantize the 4 outputs in the same assembly block, storing them at p.y: per
  /// channel, 9 instructions each where p says every multiplier of the layer is a `short_multiplier`; else 14 for
  /// one that is (its test included), and for one that is not, its bit in the result set and its sum left in s for
  /// the general requantizer; per tensor, p's constants, which the caller has found short, serve every channel
  /// (6 instructions each).
  // Rationale: in assembly for the reason `two_by_two` gives. The whole steps left over by the unrolled loop run
  // before it, so that no step pays for a branch of its own. 8 terms a step: per channel one `ldrd` of w where
  // two `ldr` took two, 38 instructions per 32 multiply-accumulates (1.19 each, against 1.31); the two widened words
  // of x more take the 14th register (the M7's int8 decoding step of the tiny llama: 569,753 -> 546,426
  // instructions). The requantization is in the same block so that the 7 registers the loop frees hold its
  // operands; in C++ after the sums, GCC 12 at -Os reloaded the epilogue's pointers and re-tested each multiplier
  // around every int8 store (27 instructions an output of a decoding step). The right shift r is taken in two: by
  // r - 1 (the value `rsbs` leaves from the test) and by 1 within `ssat`, floor(floor(v / 2^(r-1)) / 2) being
  // floor(v / 2^r); the rounding constant (2 zero + 1) 2^(r - 1) is `requantize_column`'s. Where every multiplier is
  // short, 2 zero + 1 is added after the first shift instead (floor(v / 2^(r-1)) + 2 zero + 1, a whole number added
  // to the floor), so that no channel shifts the constant: 9 instructions an output against 10 (-3,000 a token on
  // the M7). The counts and offsets are assembler expressions of K / 4 and WS, within the 30 operands GCC allows.
  template <std::size_t K, std::size_t WS, pass_output Output>
  CTATTN_ALWAYS_INLINE static unsigned row_pass(const std::int32_t* xw, const std::int8_t* w,
                                                std::int32_t (&s)[row_channels],
                                                const pass_requantization& p) noexcept {
    static_assert(Output == pass_output::sums ? row_pass_fits<K, WS> : row_pass_wide_fits<K, WS>);
    static_assert(sizeof(math::quantized_multiplier) == 8 && offsetof(math::quantized_multiplier, shift) == 4);
    constexpr std::size_t steps = K / step;
    std::size_t loops = steps / 4;  // 4 steps a round: ".rept 2" wide, ".rept 4" narrow
    std::int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    std::int32_t w_even, w_odd, x_even, x_odd;
// 4 terms of the 4 channels, one word of each channel's w: 1 + 4 x 5 instructions for 16 multiply-accumulates.
#define CTATTN_DETAIL_ROW_STEP           \
  "ldrd %[xe], %[xo], [%[x]], #8\n\t"    \
  "ldr %[we], [%[w], #%c[o1]]\n\t"       \
  "sxtb16 %[wo], %[we], ror #8\n\t"      \
  "sxtb16 %[we], %[we]\n\t"              \
  "smlad %[s1], %[xe], %[we], %[s1]\n\t" \
  "smlad %[s1], %[xo], %[wo], %[s1]\n\t" \
  "ldr %[we], [%[w], #(2 * %c[o1])]\n\t" \
  "sxtb16 %[wo], %[we], ror #8\n\t"      \
  "sxtb16 %[we], %[we]\n\t"              \
  "smlad %[s2], %[xe], %[we], %[s2]\n\t" \
  "smlad %[s2], %[xo], %[wo], %[s2]\n\t" \
  "ldr %[we], [%[w], #(3 * %c[o1])]\n\t" \
  "sxtb16 %[wo], %[we], ror #8\n\t"      \
  "sxtb16 %[we], %[we]\n\t"              \
  "smlad %[s3], %[xe], %[we], %[s3]\n\t" \
  "smlad %[s3], %[xo], %[wo], %[s3]\n\t" \
  "ldr %[we], [%[w]], #4\n\t"            \
  "sxtb16 %[wo], %[we], ror #8\n\t"      \
  "sxtb16 %[we], %[we]\n\t"              \
  "smlad %[s0], %[xe], %[we], %[s0]\n\t" \
  "smlad %[s0], %[xo], %[wo], %[s0]\n\t"
// 8 terms of one channel: its two words of w (one `ldrd` at Address) against the two widened words of x.
#define CTATTN_DETAIL_WIDE_CHANNEL(S, ADDRESS) \
  "ldrd %[we], %[wo], " ADDRESS                \
  "\n\t"                                       \
  "sxtb16 %[t], %[we], ror #8\n\t"             \
  "sxtb16 %[we], %[we]\n\t"                    \
  "smlad %[" S "], %[xe], %[we], %[" S         \
  "]\n\t"                                      \
  "smlad %[" S "], %[xo], %[t], %[" S          \
  "]\n\t"                                      \
  "sxtb16 %[t], %[wo], ror #8\n\t"             \
  "sxtb16 %[wo], %[wo]\n\t"                    \
  "smlad %[" S "], %[xe2], %[wo], %[" S        \
  "]\n\t"                                      \
  "smlad %[" S "], %[xo2], %[t], %[" S "]\n\t"
// 8 terms of the 4 channels: 2 + 4 x 9 instructions for 32 multiply-accumulates.
#define CTATTN_DETAIL_WIDE_STEP                                                             \
  "ldrd %[xe], %[xo], [%[x]], #8\n\t"                                                       \
  "ldrd %[xe2], %[xo2], [%[x]], #8\n\t" CTATTN_DETAIL_WIDE_CHANNEL("s1", "[%[w], #%c[o1]]") \
      CTATTN_DETAIL_WIDE_CHANNEL("s2", "[%[w], #(2 * %c[o1])]")                             \
          CTATTN_DETAIL_WIDE_CHANNEL("s3", "[%[w], #(3 * %c[o1])]") CTATTN_DETAIL_WIDE_CHANNEL("s0", "[%[w]], #8")
// The short requantization of sum S and its store at byte J of w (y): M holds the multiplier doubled, OFF the
// offset (2 zero + 1) 2^(right - 1), xe right - 1.
#define CTATTN_DETAIL_REQUANTIZE_AT(S, J, M, OFF, Y) \
  "smmlar %[" S "], %[" S "], %[" M "], %[" S        \
  "]\n\t"                                            \
  "sub %[" S "], %[" S "], %[" S                     \
  "], lsr #31\n\t"                                   \
  "qadd %[" S "], %[" S "], %[" OFF                  \
  "]\n\t"                                            \
  "asr %[" S "], %[" S                               \
  "], %[xe]\n\t"                                     \
  "ssat %[" S "], #8, %[" S                          \
  "], asr #1\n\t"                                    \
  "strb %[" S "], [%[" Y "], #" #J "]\n\t"
#define CTATTN_DETAIL_REQUANTIZE(S, J, M, OFF) CTATTN_DETAIL_REQUANTIZE_AT(S, J, M, OFF, "w")
// The same output with the rounding constant added after the first shift: floor(t / 2^(r-1)) + 2 zero + 1 (n), by
// `qadd` (for r = 1 the sum may pass 2^31, saturating as `ssat` would), then halved within `ssat`.
#define CTATTN_DETAIL_REQUANTIZE_ODD(S, J, M, Y) \
  "smmlar %[" S "], %[" S "], %[" M "], %[" S    \
  "]\n\t"                                        \
  "sub %[" S "], %[" S "], %[" S                 \
  "], lsr #31\n\t"                               \
  "asr %[" S "], %[" S                           \
  "], %[xe]\n\t"                                 \
  "qadd %[" S "], %[" S                          \
  "], %[n]\n\t"                                  \
  "ssat %[" S "], #8, %[" S                      \
  "], asr #1\n\t"                                \
  "strb %[" S "], [%[" Y "], #" #J "]\n\t"
// Per channel: x walks the multipliers, w is y, n is 2 zero + 1, xo collects the channels left to C++.
#define CTATTN_DETAIL_CHANNEL_OUT(S, J) \
  "ldrd %[we], %[wo], [%[x]], #8\n\t"   \
  "add %[xe], %[wo], #22\n\t"           \
  "cmp %[we], #0x40000000\n\t"          \
  "it hs\n\t"                           \
  "rsbshs %[xe], %[xe], #21\n\t"        \
  "bcc 4" #J                            \
  "f\n\t"                               \
  "lsl %[we], %[we], #1\n\t"            \
  "lsl %[wo], %[n], %[xe]\n\t" CTATTN_DETAIL_REQUANTIZE(S, J, "we", "wo") "5" #J ":\n\t"
// Per channel, every multiplier a `short_multiplier` (no test): right - 1 is -shift - 1, one `mvn`.
#define CTATTN_DETAIL_SHORT_OUT(S, J) \
  "ldrd %[we], %[wo], [%[x]], #8\n\t" \
  "mvn %[xe], %[wo]\n\t"              \
  "lsl %[we], %[we], #1\n\t" CTATTN_DETAIL_REQUANTIZE_ODD(S, J, "we", "w")
// Per tensor: x is the doubled multiplier, n the offset, xe right - 1, w is y.
#define CTATTN_DETAIL_TENSOR_OUT(S, J) CTATTN_DETAIL_REQUANTIZE(S, J, "x", "n")
// The rounds of the loop, 4 steps of 4 terms each (Body), after the steps left over.
#define CTATTN_DETAIL_ROUNDS(BODY) \
  ".if %c[steps] / 4 > 0\n\t"      \
  "1:\n\t" BODY                    \
  "subs %[n], %[n], #1\n\t"        \
  "bne 1b\n\t"                     \
  ".endif\n\t"
    if constexpr (Output == pass_output::sums) {
      // Rationale: a statement of its own with the 11 registers it needs: in `widened_row`'s other loop, the
      // 14 of the requantizing form had GCC 12 report impossible constraints.
      asm volatile(".rept %c[steps] %% 4\n\t" CTATTN_DETAIL_ROW_STEP
                   ".endr\n\t" CTATTN_DETAIL_ROUNDS(".rept 4\n\t" CTATTN_DETAIL_ROW_STEP ".endr\n\t")
                   : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(xw), [w] "+r"(w),
                     [n] "+r"(loops), [we] "=&r"(w_even), [wo] "=&r"(w_odd), [xe] "=&r"(x_even), [xo] "=&r"(x_odd)
                   : [o1] "n"(WS), [steps] "n"(steps)
                   : "cc", "memory");
      static_cast<void>(p);
    } else {
      std::int32_t x_even2, x_odd2, t;
      asm volatile(".rept %c[steps] %% 2\n\t" CTATTN_DETAIL_ROW_STEP
                   ".endr\n\t"
                   ".rept %c[steps] / 2 %% 2\n\t" CTATTN_DETAIL_WIDE_STEP
                   ".endr\n\t" CTATTN_DETAIL_ROUNDS(".rept 2\n\t" CTATTN_DETAIL_WIDE_STEP ".endr\n\t")
                   : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(xw), [w] "+r"(w),
                     [n] "+r"(loops), [we] "=&r"(w_even), [wo] "=&r"(w_odd), [xe] "=&r"(x_even), [xo] "=&r"(x_odd),
                     [xe2] "=&r"(x_even2), [xo2] "=&r"(x_odd2), [t] "=&r"(t)
                   : [o1] "n"(WS), [steps] "n"(steps)
                   : "cc", "memory");
      std::int8_t* const y = p.y;
      if constexpr (Output == pass_output::per_channel) {
        const math::quantized_multiplier* q = p.multipliers;
        if (p.every_short) {
          asm volatile(CTATTN_DETAIL_SHORT_OUT("s0", 0) CTATTN_DETAIL_SHORT_OUT("s1", 1)
                           CTATTN_DETAIL_SHORT_OUT("s2", 2) CTATTN_DETAIL_SHORT_OUT("s3", 3)
                       : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(q), [we] "=&r"(w_even),
                         [wo] "=&r"(w_odd), [xe] "=&r"(x_even)
                       : [w] "r"(y), [n] "r"(p.odd_zero)
                       : "cc", "memory");
          x_odd = 0;
        } else {
          asm volatile("movs %[xo], #0\n\t" CTATTN_DETAIL_CHANNEL_OUT("s0", 0) CTATTN_DETAIL_CHANNEL_OUT("s1", 1)
                           CTATTN_DETAIL_CHANNEL_OUT("s2", 2) CTATTN_DETAIL_CHANNEL_OUT("s3", 3)
                       "b 6f\n\t"
                       "40:\n\torr %[xo], %[xo], #1\n\tb 50b\n\t"
                       "41:\n\torr %[xo], %[xo], #2\n\tb 51b\n\t"
                       "42:\n\torr %[xo], %[xo], #4\n\tb 52b\n\t"
                       "43:\n\torr %[xo], %[xo], #8\n\tb 53b\n\t"
                       "6:\n\t"
                       : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(q),
                         [we] "=&r"(w_even), [wo] "=&r"(w_odd), [xe] "=&r"(x_even), [xo] "=&r"(x_odd)
                       : [w] "r"(y), [n] "r"(p.odd_zero)
                       : "cc", "memory");
        }
      } else {
        asm volatile(CTATTN_DETAIL_TENSOR_OUT("s0", 0) CTATTN_DETAIL_TENSOR_OUT("s1", 1)
                         CTATTN_DETAIL_TENSOR_OUT("s2", 2) CTATTN_DETAIL_TENSOR_OUT("s3", 3)
                     : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3)
                     : [w] "r"(y), [x] "r"(p.doubled), [n] "r"(p.offset), [xe] "r"(p.less)
                     : "memory");
        x_odd = 0;
      }
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    return Output == pass_output::sums ? 0u : static_cast<unsigned>(x_odd);
  }

  /// The words after a widened row that `held_passes` reads and advances: the starts, the multipliers, y, the end
  /// of y's whole passes, and per channel 2 zero + 1, or per tensor the multiplier doubled, the offset and right - 1.
  static constexpr std::size_t held_words = 7;
  /// Whether `widened_row` runs its passes as `held_passes` for rows of K terms against channels WS apart: the
  /// requantizing passes fit (`row_pass_wide_fits`), the state's words and the next pass's channels within an
  /// immediate offset.
  template <std::size_t K, std::size_t WS>
  static constexpr bool held_passes_fit = row_pass_wide_fits<K, WS> && 2 * K + 4 * held_words <= 4095 &&
                                          row_channels * WS >= K && row_channels * WS - K <= 4095;

  /// Every whole pass of `widened_row` (4 channels each, `row_pass`'s requantizing forms) in one assembly
  /// statement: per pass the 4 starts by two `ldrd`, `row_pass`'s loop, the 4 outputs requantized as there (each
  /// channel's short multiplier, or the tensor's), and the pointers advanced in the words after the widened row
  /// (`held_words`: xw + K / 2, which the loop's x pointer reaches at its end). The same bits as `row_pass`.
  // Rationale: GCC 12 at -Os kept the pass's pointers on the stack around `row_pass` (a load, an add and a store
  // each), reloaded the starts one by one and tested the layer's flag again: 73 instructions a pass beside the loop,
  // against 55 here (the M7's int8 decoding step of the tiny llama: 878 passes). The loop's 14 registers leave none
  // for the pass's state, so it lives after xw, where x ends each loop; w walks on from one pass to the next.
  template <std::size_t K, std::size_t WS, bool PerChannel>
  CTATTN_ALWAYS_INLINE static void held_passes(std::int32_t* xw, const std::int8_t* w) noexcept {
    static_assert(held_passes_fit<K, WS>);
    constexpr std::size_t steps = K / step;
    std::int32_t s0, s1, s2, s3, loops, w_even, w_odd, x_even, x_odd, x_even2, x_odd2, t;
// Per channel: xo walks the multipliers, xe2 is y, n is 2 zero + 1.
#define CTATTN_DETAIL_HELD_SHORT_OUT(S, J) \
  "ldrd %[we], %[wo], [%[xo]], #8\n\t"     \
  "mvn %[xe], %[wo]\n\t"                   \
  "lsl %[we], %[we], #1\n\t" CTATTN_DETAIL_REQUANTIZE_ODD(S, J, "we", "xe2")
// Per tensor: xo is the doubled multiplier, n the offset, xe right - 1, xe2 y.
#define CTATTN_DETAIL_HELD_TENSOR_OUT(S, J) CTATTN_DETAIL_REQUANTIZE_AT(S, J, "xo", "n", "xe2")
#define CTATTN_DETAIL_HELD_PASSES(LOADS, OUT, STORE)                                                                  \
  "0:\n\t"                                                                                                            \
  "ldr %[t], [%[x], #%c[state]]\n\t"                                                                                  \
  "ldrd %[s0], %[s1], [%[t]], #8\n\t"                                                                                 \
  "ldrd %[s2], %[s3], [%[t]], #8\n\t"                                                                                 \
  "str %[t], [%[x], #%c[state]]\n\t"                                                                                  \
  ".if %c[steps] / 4 > 0\n\t"                                                                                         \
  "mov %[n], #(%c[steps] / 4)\n\t"                                                                                    \
  ".endif\n\t"                                                                                                        \
  ".rept %c[steps] %% 2\n\t" CTATTN_DETAIL_ROW_STEP                                                                   \
  ".endr\n\t"                                                                                                         \
  ".rept %c[steps] / 2 %% 2\n\t" CTATTN_DETAIL_WIDE_STEP                                                              \
  ".endr\n\t" CTATTN_DETAIL_ROUNDS(".rept 2\n\t" CTATTN_DETAIL_WIDE_STEP ".endr\n\t") LOADS OUT("s0", 0) OUT("s1", 1) \
      OUT("s2", 2) OUT("s3", 3) "add %[xe2], %[xe2], #4\n\t" STORE                                                    \
                                "ldr %[t], [%[x], #12]\n\t"                                                           \
                                "subw %[x], %[x], #%c[state]\n\t"                                                     \
                                "addw %[w], %[w], #%c[next]\n\t"                                                      \
                                "cmp %[xe2], %[t]\n\t"                                                                \
                                "bne 0b\n\t"
// The operands both forms share: the loop's 14 registers.
#define CTATTN_DETAIL_HELD_OPERANDS                                                                              \
  : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [x] "+r"(xw), [w] "+r"(w), [n] "=&r"(loops),    \
    [we] "=&r"(w_even), [wo] "=&r"(w_odd), [xe] "=&r"(x_even), [xo] "=&r"(x_odd), [xe2] "=&r"(x_even2),             \
    [xo2] "=&r"(x_odd2), [t] "=&r"(t)                                                                               \
  : [o1] "n"(WS), [steps] "n"(steps), [state] "n"(2 * K), [next] "n"(row_channels * WS - K)                        \
  : "cc", "memory"
    if constexpr (PerChannel) {
      asm volatile(CTATTN_DETAIL_HELD_PASSES(
          "ldrd %[xo], %[xe2], [%[x], #4]\n\t"
          "ldr %[n], [%[x], #16]\n\t",
          CTATTN_DETAIL_HELD_SHORT_OUT, "strd %[xo], %[xe2], [%[x], #4]\n\t") CTATTN_DETAIL_HELD_OPERANDS);
    } else {
      asm volatile(CTATTN_DETAIL_HELD_PASSES(
          "ldr %[xe2], [%[x], #8]\n\t"
          "ldrd %[xo], %[n], [%[x], #16]\n\t"
          "ldr %[xe], [%[x], #24]\n\t",
          CTATTN_DETAIL_HELD_TENSOR_OUT, "str %[xe2], [%[x], #8]\n\t") CTATTN_DETAIL_HELD_OPERANDS);
    }
  }
#undef CTATTN_DETAIL_HELD_OPERANDS
#undef CTATTN_DETAIL_HELD_PASSES
#undef CTATTN_DETAIL_HELD_TENSOR_OUT
#undef CTATTN_DETAIL_HELD_SHORT_OUT
#undef CTATTN_DETAIL_ROUNDS
#undef CTATTN_DETAIL_TENSOR_OUT
#undef CTATTN_DETAIL_REQUANTIZE
#undef CTATTN_DETAIL_REQUANTIZE_AT
#undef CTATTN_DETAIL_REQUANTIZE_ODD
#undef CTATTN_DETAIL_SHORT_OUT
#undef CTATTN_DETAIL_CHANNEL_OUT
#undef CTATTN_DETAIL_WIDE_STEP
#undef CTATTN_DETAIL_WIDE_CHANNEL
#undef CTATTN_DETAIL_ROW_STEP

  /// The R outputs of one channel (multiplier q, output zero point `zero`) from their int32 sums: TFLite's
  /// requantization, `kernels::output_requantizer`'s bits, in 5 instructions an output where the multiplier is
  /// normalized and the shift is to the right by 1 to 22 (every layer's, in practice).
  // Rationale: the doubling high multiply floor((x m + 2^30) / 2^31) is one `smmlar` of x, 2m - 2^32 (the
  // multiplier doubled, read as a signed word) and x: x 2^32 + x (2m - 2^32) + 2^31 = 2 x m + 2^31 in the
  // instruction's 64-bit sum, exact for every x and every m in [2^30, 2^31), the normalized multipliers (a smaller
  // one, such as 0, takes the general requantizer). Its result h is at least -2^31 + 1, so
  // h - (h < 0) cannot wrap; adding 2^(e-1) + zero 2^e with `qadd` and shifting right by e rounds half away from
  // zero and adds the zero point in one go (the constant fits while e <= 22), and where `qadd` saturates the true
  // value is past 2^(31 - e) >= 512 in magnitude, which `ssat` clamps the same way.
  /// One output of `requantize_column`'s 5-instruction form: sum requantized by a multiplier m that
  /// is a `short_multiplier` (doubled: 2m read as a signed word), its right shift `right` and offset (2 zero + 1)
  /// 2^(right - 1).
  CTATTN_ALWAYS_INLINE static std::int8_t short_form(std::int32_t sum, std::int32_t doubled, std::int32_t offset,
                                                     int right) noexcept {
    const std::int32_t h = kernels::rounded_high_sum(sum, sum, doubled);
    const auto t = static_cast<std::int32_t>(static_cast<std::uint32_t>(h) - (static_cast<std::uint32_t>(h) >> 31));
    return static_cast<std::int8_t>(kernels::signed_saturate<8>(__builtin_arm_qadd(t, offset) >> right));
  }

  template <std::size_t R>
  CTATTN_ALWAYS_INLINE static void requantize_column(const std::int32_t (&sums)[block_rows],
                                                     const math::quantized_multiplier& q, std::int32_t zero,
                                                     std::int8_t* y, std::size_t ys) noexcept {
    const auto doubled = static_cast<std::int32_t>(static_cast<std::uint32_t>(q.multiplier) << 1);
    if (q.multiplier < (1 << 30)) {
      const kernels::output_requantizer requantize{q.multiplier, q.shift, zero};
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) y[r * ys] = requantize(sums[r]);
    } else if (q.shift >= 0) {
      const int left = q.shift;
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(sums[r]) << left);
        y[r * ys] = static_cast<std::int8_t>(
            kernels::signed_saturate<8>(__builtin_arm_qadd(kernels::rounded_high_sum(v, v, doubled), zero)));
      }
    } else if (q.shift >= -22) {
      // Rationale: the rest of `short_multiplier`'s test is what the branches before have found; stated whole
      // here (or first), GCC 12 at -Os tested again around the loops: the worked example in int8 on the M4F took
      // 25,261 (25,144 first) instructions against 23,688.
      const int right = -q.shift;
      // (2 zero + 1) 2^(right - 1) = 2^(right - 1) + zero 2^right: one shift of a constant made once for the layer.
      const auto offset =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(2 * zero + 1) << static_cast<unsigned>(right - 1));
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) y[r * ys] = short_form(sums[r], doubled, offset, right);
    } else {
      const kernels::output_requantizer requantize{q.multiplier, q.shift, zero};
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) y[r * ys] = requantize(sums[r]);
    }
  }

  /// R <= 6 rows of x from row r0, widened once, against all N channels of w, into y.
  // Rationale: never inlined, so that the widened rows (up to 6 x K int16) are on the stack only while the block
  // runs. Inlined into a model's forward (GCC inlines a block used once), they joined that function's frame and were
  // live during every other layer's call too: 384 bytes more than the int8 sorter's footprint counts on the M4F.
  template <std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R,
            typename Epilogue>
  [[gnu::noinline]] static void widened_block(const std::int8_t* x, const std::int8_t* w, std::size_t r0,
                                              const Epilogue& e, std::int8_t* y) noexcept {
    alignas(8) std::int32_t xw[(K + step - 1) / step * R * 2];
    widen_rows<K, XS, R>(x, xw);
    for (std::size_t c = 0; c < N; ++c) {
      std::int32_t sums[block_rows]{};
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) sums[r] = e.start(r0 + r, c);
      block_column<K, R>(xw, w + c * WS, sums);
      requantize_column<R>(sums, e.multiplier(c), e.zero, y + c, YS);
    }
  }

  /// One row of x (row r0 of the product), widened once, against all N channels of w, into y: 4 channels a pass
  /// (`row_pass`), the N % 4 channels left as a block of one row.
  // Rationale: never inlined, for the reason `widened_block` gives.
  template <std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS, typename Epilogue>
  [[gnu::noinline]] static void widened_row(const std::int8_t* x, const std::int8_t* w, std::size_t r0,
                                            const Epilogue& epilogue, std::int8_t* y) noexcept {
    // Rationale: a local copy whose address is not taken, for the reason `product_requantized` gives: read through
    // the reference, its members were loaded again after each output's store.
    const Epilogue e = epilogue;
    constexpr bool held = held_passes_fit<K, WS> && !Epilogue::row_starts;
    alignas(8) std::int32_t xw[(K + step - 1) / step * 2 + (held ? held_words : 0)];
    widen_rows<K, XS, 1>(x, xw);
    constexpr std::size_t whole = N - N % row_channels;
    pass_requantization p{};  // the requantizing passes' constants; a `sums` pass reads none
    if constexpr (row_pass_wide_fits<K, WS>) {
      bool fused = true;
      if constexpr (Epilogue::per_channel) {
        p.odd_zero = 2 * e.zero + 1;
        p.every_short = e.short_multipliers;
      } else {
        const math::quantized_multiplier& q = e.multiplier(0);
        fused = kernels::short_multiplier(q);
        const int right = -q.shift;
        p.doubled = static_cast<std::int32_t>(static_cast<std::uint32_t>(q.multiplier) << 1);
        p.less = right - 1;
        p.offset = static_cast<std::int32_t>(static_cast<std::uint32_t>(2 * e.zero + 1)
                                             << static_cast<unsigned>(fused ? right - 1 : 0));
      }
      // Rationale: `ldrd` faults on an address that is not word-aligned (ARMv7-M), and a qmatrix's int8 elements
      // promise no alignment; a model's weights are aligned where what precedes them is, which is the usual case.
      fused = fused && (reinterpret_cast<std::uintptr_t>(w) & 3u) == 0;
      if (fused) {
        std::size_t done = 0;  // channels the held passes computed
        if constexpr (held) {
          if (!Epilogue::per_channel || p.every_short) {
            std::int32_t* const state = xw + K / 2;
            state[0] = std::bit_cast<std::int32_t>(e.column_start);
            state[1] = std::bit_cast<std::int32_t>(e.multipliers);
            state[2] = std::bit_cast<std::int32_t>(y);
            state[3] = std::bit_cast<std::int32_t>(y + whole);
            state[4] = Epilogue::per_channel ? p.odd_zero : p.doubled;
            state[5] = p.offset;
            state[6] = p.less;
            held_passes<K, WS, Epilogue::per_channel>(xw, w);
            done = whole;
          }
        }
        for (std::size_t c = done; c < whole; c += row_channels) {
          std::int32_t sums[row_channels];
#pragma GCC unroll 4
          for (std::size_t j = 0; j < row_channels; ++j) sums[j] = e.start(r0, c + j);
          p.multipliers = &e.multiplier(c);
          p.y = y + c;
          const unsigned left =
              row_pass<K, WS, Epilogue::per_channel ? pass_output::per_channel : pass_output::per_tensor>(
                  xw, w + c * WS, sums, p);
          if (left != 0) [[unlikely]] {
#pragma GCC unroll 4
            for (std::size_t j = 0; j < row_channels; ++j) {
              if ((left >> j & 1u) != 0) y[c + j] = e.requantizer(c + j)(sums[j]);
            }
          }
        }
        for (std::size_t c = whole; c < N; ++c) {
          std::int32_t sums[block_rows]{};
          sums[0] = e.start(r0, c);
          block_column<K, 1>(xw, w + c * WS, sums);
          requantize_column<1>(sums, e.multiplier(c), e.zero, y + c, YS);
        }
        return;
      }
    }
    for (std::size_t c = 0; c < whole; c += row_channels) {
      std::int32_t sums[row_channels];
#pragma GCC unroll 4
      for (std::size_t j = 0; j < row_channels; ++j) sums[j] = e.start(r0, c + j);
      const std::int8_t* wc = w + c * WS;
      row_pass<K, WS, pass_output::sums>(xw, wc, sums, p);
      if constexpr (K % step != 0) {
        const std::int32_t x_even = xw[K / step * 2];
        const std::int32_t x_odd = xw[K / step * 2 + 1];
#pragma GCC unroll 4
        for (std::size_t j = 0; j < row_channels; ++j) {
          const std::uint32_t word = load_tail<K>(wc + j * WS + K - K % step);
          sums[j] = __smlad(x_odd, odd_bytes(word), __smlad(x_even, even_bytes(word), sums[j]));
        }
      }
#pragma GCC unroll 4
      for (std::size_t j = 0; j < row_channels; ++j) {
        std::int32_t one[block_rows];
        one[0] = sums[j];
        requantize_column<1>(one, e.multiplier(c + j), e.zero, y + c + j, YS);
      }
    }
    for (std::size_t c = whole; c < N; ++c) {
      std::int32_t sums[block_rows]{};
      sums[0] = e.start(r0, c);
      block_column<K, 1>(xw, w + c * WS, sums);
      requantize_column<1>(sums, e.multiplier(c), e.zero, y + c, YS);
    }
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart). One row (a decode step's) takes `widened_row`. Where K is
  /// at most `widened_max_terms`, blocks of at most 6
  /// rows of x widened once (as equal as the rows allow), each against every channel in the order w is stored;
  /// else tiles of `tile_rows` x `tile_channels`, then the rows and channels left in narrower tiles.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    // Rationale: e by value, a local whose address is not taken: the int8 stores to y may alias anything, and the
    // epilogue's members would be loaded again after each of them.
    if constexpr (M == 1 && widens<K> && row_pass_fits<K, WS> && N >= row_channels) {
      widened_row<K, N, XS, WS, YS>(x, w, 0, e, y);
    } else if constexpr (widens<K>) {
      constexpr std::size_t blocks = (M + block_rows - 1) / block_rows;
      constexpr std::size_t larger = (M + blocks - 1) / blocks;  // rows of the first M % blocks blocks (or all)
      constexpr std::size_t smaller = M / blocks;
      constexpr std::size_t larger_blocks = M % blocks == 0 ? blocks : M % blocks;
      std::size_t r = 0;
      for (std::size_t b = 0; b < larger_blocks; ++b, r += larger) {
        widened_block<K, N, XS, WS, YS, larger>(x + r * XS, w, r, e, y + r * YS);
      }
      if constexpr (larger_blocks < blocks) {
        for (std::size_t b = larger_blocks; b < blocks; ++b, r += smaller) {
          widened_block<K, N, XS, WS, YS, smaller>(x + r * XS, w, r, e, y + r * YS);
        }
      }
    } else {
      tiled_product<M, K, N, XS, WS, YS>(x, w, e, y);
    }
  }

  /// The 2 x 2 tiles of `product_requantized`, for rows that are not widened.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void tiled_product(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t whole = N - N % tile_channels;
    for (std::size_t c = 0; c < whole; c += tile_channels) {
      std::size_t r = 0;
      for (; r + tile_rows <= M; r += tile_rows) {
        tile<K, XS, WS, YS, tile_rows, tile_channels>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
      }
      for (; r < M; ++r) tile<K, XS, WS, YS, 1, tile_channels>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
    }
    for (std::size_t c = whole; c < N; ++c) {
      for (std::size_t r = 0; r < M; ++r) tile<K, XS, WS, YS, 1, 1>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
    }
  }
};

struct arm_dsp_int4_ops;   // kernels/arm_dsp_int4.hpp
struct arm_dsp_int16_ops;  // kernels/arm_dsp_int16.hpp

/// The int8 table's arm_dsp row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::arm_dsp> {
  static constexpr const char* name = "arm_dsp";
  using ops = arm_dsp_int8_ops;
  using product_ops = arm_dsp_int8_ops;
  using packed_ops = void;
  using int4_ops = arm_dsp_int4_ops;
  using int16_ops = arm_dsp_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_INT8_HPP
