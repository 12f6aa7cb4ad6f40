// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_HELIUM_INT8_HPP
#define CTATTN_KERNELS_HELIUM_INT8_HPP

/// \file
/// The Helium int8 backend (Arm M-profile Vector Extension, e.g. Cortex-M55): the int8 operations of
/// kernels/detail/int8_simd.hpp on 8 terms per step, and the layers' products, softmax, LayerNorm, lookups and ADD
/// on 16 int8 lanes. Built only where the compiler defines `__ARM_FEATURE_MVE` with its integer bit (1), with Clang or
/// GCC 13 and later (kernels/backend.hpp says why not GCC 12); kernels/int8.hpp includes it and chooses its row.
/// Tested on the target by the firmware board `m55-helium`.
///
/// Example: `static_assert(ctattn::detail::helium_int8_ops::step == 8);` (on a Helium target)

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/int4_packing.hpp"
#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/math/isqrt.hpp"

// The int8 operations need MVE's integer instructions only (bit 1), with Clang or GCC 13 and later, as the float
// ones.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (defined(__clang__) || __GNUC__ >= 13)

#include <arm_mve.h>

#include <bit>
#include <cstdint>

namespace ctattn::detail {

/// The int8 operations of kernels/detail/int8_simd.hpp on 8 terms per step: `vldrb.s16` loads 8 int8 widened to
/// int16, `vsub` subtracts the zero point, `vmladava` multiplies the 8 lanes and adds the products to one int32.
struct helium_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  static constexpr bool reads_short_multipliers = true;  // `product_requantized`'s per-channel passes
  static constexpr bool has_row_sum = true;
  static constexpr bool has_softmax_row = true;
  static constexpr bool has_add = true;
  static constexpr bool has_multiply = true;
  static constexpr bool has_requantize_values = true;
  static constexpr bool has_rotate_heads = true;
  static constexpr bool has_lookup = true;
  static constexpr bool has_first_largest = true;
  static constexpr bool has_sum_and_squares = true;
  static constexpr bool has_layer_norm_row = true;
  static constexpr std::size_t step = 8;
  using offset = std::int16_t;
  using widened = int16x8_t;
  using accumulator = std::int32_t;
  static offset make_offset(std::int32_t zero_point) noexcept { return static_cast<std::int16_t>(zero_point); }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    return __arm_vsubq_n_s16(__arm_vldrbq_s16(p), zero_point);
  }
  static accumulator zero() noexcept { return 0; }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return __arm_vmladavaq_s16(sum, x, y);
  }
  static std::int32_t total(accumulator sum) noexcept { return sum; }

  /// The channels of w one pass of the fully-connected kernel computes (4 int32 lanes of requantization).
  static constexpr std::size_t fc_channels = 4;

  /// sum_t x[t] w_c[t] for t < K, the four channels at w (WS bytes apart), into a vector's four lanes: `vmladava.s8`
  /// on 16 raw int8 pairs at once (no widening: the input's zero point is folded into the bias), the last K % 16
  /// terms by tail-predicated loads, whose disabled lanes read as zero and add nothing.
  template <std::size_t K, std::size_t WS>
  CTATTN_ALWAYS_INLINE static int32x4_t four_channels(const std::int8_t* x, const std::int8_t* w) noexcept {
    constexpr std::size_t whole = K - K % 16;
    std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    // Rationale: five pointers that each step advances (post-indexed loads), not one index: at -Os Clang 14 then
    // emits the 9 instructions a step needs, not 19 (an address computed for each load).
    const std::int8_t* w0 = w;
    const std::int8_t* w1 = w + WS;
    const std::int8_t* w2 = w + 2 * WS;
    const std::int8_t* w3 = w + 3 * WS;
    const auto one_step = [&] {
      const int8x16_t xv = __arm_vld1q_s8(x);
      s0 = __arm_vmladavaq_s8(s0, xv, __arm_vld1q_s8(w0));
      s1 = __arm_vmladavaq_s8(s1, xv, __arm_vld1q_s8(w1));
      s2 = __arm_vmladavaq_s8(s2, xv, __arm_vld1q_s8(w2));
      s3 = __arm_vmladavaq_s8(s3, xv, __arm_vld1q_s8(w3));
      x += 16;
      w0 += 16;
      w1 += 16;
      w2 += 16;
      w3 += 16;
    };
    // Rationale: unrolled whole up to 8 steps (K below 144: every whole step's load at an offset within `vldrb`'s
    // immediate of 127); a longer row as a loop of one step (`dls`/`le`: 10 instructions a step). Unrolled by 4 or
    // whole past 8 steps, Clang 14 at -Os kept a pointer for each offset, spilled them, and took 176 to 178
    // instructions per pass of 4 channels of 172 terms against 160 for the loop.
    if constexpr (whole / 16 <= 8) {
#pragma GCC unroll 8
      for (std::size_t t = 0; t < whole; t += 16) one_step();
    } else {
#pragma GCC unroll 1
      for (std::size_t t = 0; t < whole; t += 16) one_step();
    }
    if constexpr (whole < K) {
      const mve_pred16_t lanes = __arm_vctp8q(K - whole);
      const int8x16_t xv = __arm_vldrbq_z_s8(x, lanes);
      s0 = __arm_vmladavaq_s8(s0, xv, __arm_vldrbq_z_s8(w0, lanes));
      s1 = __arm_vmladavaq_s8(s1, xv, __arm_vldrbq_z_s8(w1, lanes));
      s2 = __arm_vmladavaq_s8(s2, xv, __arm_vldrbq_z_s8(w2, lanes));
      s3 = __arm_vmladavaq_s8(s3, xv, __arm_vldrbq_z_s8(w3, lanes));
    }
    int32x4_t sums = __arm_vdupq_n_s32(s0);
    sums = __arm_vsetq_lane_s32(s1, sums, 1);
    sums = __arm_vsetq_lane_s32(s2, sums, 2);
    return __arm_vsetq_lane_s32(s3, sums, 3);
  }

  /// The vectors of one input row of K <= 64 terms, loaded once for every pass over the channels (`four_held`);
  /// the last one's lanes past K zero (`vctp8`), so that they add nothing whatever the weights hold there.
  template <std::size_t K>
  struct held_row {
    static constexpr std::size_t vectors = (K + 15) / 16;
    int8x16_t v[vectors];
    CTATTN_ALWAYS_INLINE explicit held_row(const std::int8_t* x) noexcept {
#pragma GCC unroll 4
      for (std::size_t i = 0; i < vectors; ++i) {
        v[i] = 16 * i + 16 <= K ? __arm_vld1q_s8(x + 16 * i)
                                : __arm_vldrbq_z_s8(x + 16 * i, __arm_vctp8q(static_cast<std::uint32_t>(K - 16 * i)));
      }
    }
  };

  /// `four_channels` on a held row: only the weights are loaded (the last vector's by `vctp8`, which reads no byte
  /// past the row).
  // Rationale: a decoding step's products have one row of K = 64 terms and 32 to 512 channels; its 4 vectors loaded
  // once save up to 4 of the 59 instructions of each pass of 4 channels (Clang 14 at -Os keeps 2 of them in q
  // registers beside per-channel multipliers and shifts, all 4 beside one multiplier): 1,515 instructions a token of
  // the stories260K-shaped model on the M55.
  template <std::size_t K, std::size_t WS>
  CTATTN_ALWAYS_INLINE static int32x4_t four_held(const held_row<K>& x, const std::int8_t* w) noexcept {
    std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma GCC unroll 4
    for (std::size_t i = 0; i < held_row<K>::vectors; ++i) {
      const std::int8_t* const p = w + 16 * i;
      if (16 * i + 16 <= K) {
        s0 = __arm_vmladavaq_s8(s0, x.v[i], __arm_vld1q_s8(p));
        s1 = __arm_vmladavaq_s8(s1, x.v[i], __arm_vld1q_s8(p + WS));
        s2 = __arm_vmladavaq_s8(s2, x.v[i], __arm_vld1q_s8(p + 2 * WS));
        s3 = __arm_vmladavaq_s8(s3, x.v[i], __arm_vld1q_s8(p + 3 * WS));
      } else {
        const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(K - 16 * i));
        s0 = __arm_vmladavaq_s8(s0, x.v[i], __arm_vldrbq_z_s8(p, lanes));
        s1 = __arm_vmladavaq_s8(s1, x.v[i], __arm_vldrbq_z_s8(p + WS, lanes));
        s2 = __arm_vmladavaq_s8(s2, x.v[i], __arm_vldrbq_z_s8(p + 2 * WS, lanes));
        s3 = __arm_vmladavaq_s8(s3, x.v[i], __arm_vldrbq_z_s8(p + 3 * WS, lanes));
      }
    }
    int32x4_t sums = __arm_vdupq_n_s32(s0);
    sums = __arm_vsetq_lane_s32(s1, sums, 1);
    sums = __arm_vsetq_lane_s32(s2, sums, 2);
    return __arm_vsetq_lane_s32(s3, sums, 3);
  }

  /// Whether `held_short_passes` takes a product: one row (and no row starts) of 64 terms, the channels back to
  /// back (WS = 64), multipliers per channel; on Clang.
  template <std::size_t M, std::size_t K, std::size_t WS, typename Epilogue>
  static constexpr bool takes_held_short_passes =
#if defined(__clang__)
      M == 1 && K == 64 && WS == 64 && Epilogue::per_channel && !Epilogue::row_starts;
#else
      false;
#endif

  /// `product_requantized`'s passes of 4 channels for a product `takes_held_short_passes` takes whose multipliers
  /// are all short (`int8_epilogue::short_multipliers`), in one assembly statement: per pass the 16 weight vectors
  /// read in order (`vldrb.u8` post-incremented) against the 4 held input vectors (`vmlav`, `vmlava`), the
  /// {multiplier, shift} pairs split by `vld2`, the column starts, and the C form's requantization; `passes`
  /// of them (1 or more) from w, the multipliers m, the starts `bias` and the output y.
  // Rationale: the C form's pass took 51 instructions with Clang 14 (-O2 and -Os): the weights at two pointers each
  // advanced by an `add`, and the output pointer moved out of and back into the even register a sum needed
  // (`vmlav` writes even registers only); 47 here. An assembly statement inside the loop would not do: Clang makes
  // no low-overhead loop (`le`) of a loop holding one, which costs 2 a pass. 670 passes a token in the
  // stories260K-shaped model (1 x 64 x 172, 64 and 32).
  static void held_short_passes(const held_row<64>& x, const std::int8_t* w, const math::quantized_multiplier* m,
                                const std::int32_t* bias, std::int32_t zero, std::int8_t* y,
                                std::size_t passes) noexcept {
#if defined(__clang__)
    // Each channel's sum in an even register (`Te`): `vmlav` writes only those. The output pointer in a low one
    // (`l`): `vstrb.32` takes only r0 to r7. `vmov q[2], q[0], a, b` puts a in lane 0 and b in lane 2.
    std::int32_t s0;
    std::int32_t s1;
    std::int32_t s2;
    std::int32_t s3;
    asm volatile(
        "dls lr, %[n]\n"
        "1:\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlav.s8  %[s0], %[x0], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s0], %[x1], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s0], %[x2], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s0], %[x3], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlav.s8  %[s1], %[x0], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s1], %[x1], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s1], %[x2], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s1], %[x3], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlav.s8  %[s2], %[x0], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s2], %[x1], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s2], %[x2], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s2], %[x3], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlav.s8  %[s3], %[x0], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s3], %[x1], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s3], %[x2], q4\n\t"
        "vldrb.u8 q4, [%[w]], #16\n\t"
        "vmlava.s8 %[s3], %[x3], q4\n\t"
        "vld20.32 {q4, q5}, [%[m]]\n\t"
        "vld21.32 {q4, q5}, [%[m]]!\n\t"
        "vldrw.u32 q6, [%[b]], #16\n\t"
        "vmov q7[2], q7[0], %[s0], %[s2]\n\t"
        "vmov q7[3], q7[1], %[s1], %[s3]\n\t"
        "vadd.i32 q7, q7, q6\n\t"
        "vqrdmulh.s32 q7, q7, q4\n\t"
        "vshr.s32 q6, q7, #31\n\t"
        "vqadd.s32 q7, q7, q6\n\t"
        "vrshl.s32 q7, q7, q5\n\t"
        "vqadd.s32 q7, q7, %[z]\n\t"
        "vqshl.s32 q7, q7, #24\n\t"
        "vshr.s32 q7, q7, #24\n\t"
        "vstrb.32 q7, [%[y]], #4\n\t"
        "le lr, 1b"
        : [w] "+r"(w), [m] "+r"(m), [b] "+r"(bias), [y] "+l"(y), [s0] "=&Te"(s0), [s1] "=&Te"(s1), [s2] "=&Te"(s2),
          [s3] "=&Te"(s3)
        : [n] "r"(passes), [z] "r"(zero), [x0] "w"(x.v[0]), [x1] "w"(x.v[1]), [x2] "w"(x.v[2]), [x3] "w"(x.v[3])
        : "q4", "q5", "q6", "q7", "lr", "memory");
#else
    (void)x, (void)w, (void)m, (void)bias, (void)zero, (void)y, (void)passes;
#endif
  }

  /// sum_t p[t] for t < K: `vaddva.s8` over 16 bytes a step, the tail by `vctp8`.
  template <std::size_t K>
  static std::int32_t row_sum(const std::int8_t* p) noexcept {
    constexpr std::size_t whole = K - K % 16;
    std::int32_t sum = 0;
#pragma GCC unroll 4
    for (std::size_t t = 0; t < whole; t += 16) sum = __arm_vaddvaq_s8(sum, __arm_vld1q_s8(p + t));
    if constexpr (whole < K) sum = __arm_vaddvaq_s8(sum, __arm_vldrbq_z_s8(p + whole, __arm_vctp8q(K - whole)));
    return sum;
  }

  /// sum_t p[t] and sum_t p[t]^2 for t < K (the int8 LayerNorm's S1 and S2): `vaddva.s8` and `vmladava.s8` over 16
  /// bytes a step, the tail by `vctp8`.
  template <std::size_t K>
  static void sum_and_squares(const std::int8_t* p, std::int32_t& sum, std::int32_t& squares) noexcept {
    std::int32_t s1 = 0;
    std::int32_t s2 = 0;
    for (std::size_t t = 0; t < K; t += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(K - t));
      const int8x16_t v = __arm_vldrbq_z_s8(p + t, lanes);
      s1 = __arm_vaddvaq_s8(s1, v);
      s2 = __arm_vmladavaq_s8(s2, v, v);
    }
    sum = s1;
    squares = s2;
  }

  static constexpr bool has_weighted_rows = true;
  /// The row widths and query counts `weighted_rows` takes: whole vectors of 4 int32 sums, at most 4 of them for all
  /// G queries (their sums stay in q registers beside a row's vectors).
  template <std::size_t D, std::size_t G>
  static constexpr bool weighted_rows_take = D >= 4 && D % 4 == 0 && G >= 1 && G * (D / 4) <= 4;
  /// sums[i sums_stride + c] = sum_j (w[i w_stride + j] - w_zero)(v[j v_stride + c] - v_zero) for i < G, c < D, j < n:
  /// per row j, its D values sign-extended into int32 lanes (`vldrb.s32`) once and multiplied by each query's weight
  /// into that query's sums (`vmla`), the zero point's term v_zero sum_j (w[i][j] - w_zero) taken off once at the end
  /// (the same int32 sums).
  // Rationale: one query's weighted values in a decoding step with small heads (8 values a key): 2 loads and 2
  // `vmla` a key, against 8 scalar multiply-adds and their loads; the G query heads that share a value head (grouped-
  // query attention) share the row's loads.
  template <std::size_t D, std::size_t G>
  static void weighted_rows(const std::int8_t* w, std::size_t w_stride, std::int32_t w_zero, const std::int8_t* v,
                            std::size_t v_stride, std::int32_t v_zero, std::size_t n, std::int32_t* sums,
                            std::size_t sums_stride) noexcept {
    constexpr std::size_t vectors = D / 4;
    int32x4_t acc[G][vectors];
    std::int32_t weights[G];
#pragma GCC unroll 4
    for (std::size_t i = 0; i < G; ++i) {
      weights[i] = 0;
#pragma GCC unroll 4
      for (std::size_t q = 0; q < vectors; ++q) acc[i][q] = __arm_vdupq_n_s32(0);
    }
    for (std::size_t j = 0; j < n; ++j, v += v_stride) {
      int32x4_t row[vectors];
#pragma GCC unroll 4
      for (std::size_t q = 0; q < vectors; ++q) row[q] = __arm_vldrbq_s32(v + 4 * q);
#pragma GCC unroll 4
      for (std::size_t i = 0; i < G; ++i) {
        const std::int32_t weight = std::int32_t{w[i * w_stride + j]} - w_zero;
        weights[i] += weight;
#pragma GCC unroll 4
        for (std::size_t q = 0; q < vectors; ++q) acc[i][q] = __arm_vmlaq_n_s32(acc[i][q], row[q], weight);
      }
    }
#pragma GCC unroll 4
    for (std::size_t i = 0; i < G; ++i) {
      const int32x4_t offset = __arm_vdupq_n_s32(v_zero * weights[i]);
#pragma GCC unroll 4
      for (std::size_t q = 0; q < vectors; ++q) {
        __arm_vst1q_s32(sums + i * sums_stride + 4 * q, __arm_vsubq_s32(acc[i][q], offset));
      }
    }
  }

  /// Rows the vector softmax takes: a sum of at most 2047 exponentials of 2^20 or less stays below 2^31, so that
  /// the numerators 512 e + sum and the divisor 2 sum fit 32-bit lanes.
  static constexpr std::size_t softmax_row_limit = 2047;
  /// ... of any length from 1 on.
  static constexpr std::size_t softmax_row_shortest = 1;

  /// kernels/int8.hpp's `int8_softmax_row` for a row of 1 to `softmax_row_limit` entries, all visible: the same
  /// weights, 4 lanes at a time. The largest entry by `vmaxv.s8`, the exponentials by a gather from the table
  /// (`vldrw.u32` with shifted offsets), their sum by `vaddva`; each weight's quotient round(256 e / sum) as
  /// (n r) >> 40 with r = `math::reciprocal_guess(2 sum)`, n = 512 e + sum: `vmulh.u32` gives (n r) >> 32, a shift
  /// the rest (floor of a floor), and the remainder n - q 2 sum (below 2^32: q 2 sum <= n) against 2 sum adds the
  /// last one, as the scalar form's comparison does. Tails by `vctp`.
  static void softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                          const std::int32_t* table) noexcept {
    const std::int8_t* const xs = x + begin;
    std::int8_t* const ws = w + begin;
    const std::size_t n = end - begin;
    std::int8_t largest = -128;
    for (std::size_t t = 0; t < n; t += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(n - t));
      largest = __arm_vmaxvq_p_s8(largest, __arm_vldrbq_z_s8(xs + t, lanes), lanes);
    }
    const int32x4_t top = __arm_vdupq_n_s32(largest);
    const auto offsets = [&](std::size_t t, mve_pred16_t lanes) {
      return __arm_vreinterpretq_u32_s32(__arm_vsubq_s32(top, __arm_vldrbq_z_s32(xs + t, lanes)));
    };
    std::int32_t sum = 0;
    for (std::size_t t = 0; t < n; t += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - t));
      sum = __arm_vaddvaq_p_s32(sum, __arm_vldrwq_gather_shifted_offset_z_s32(table, offsets(t, lanes), lanes), lanes);
    }
    const auto divisor = static_cast<std::uint32_t>(2 * sum);
    // d = 2 sum is in [2^21, 2^32) (the largest entry adds table[0] = 2^20) and each numerator below 2^32: one
    // `udiv` (math::reciprocal_guess), whose guesses are each quotient or one less as the exact reciprocal's are.
    const std::uint32_t reciprocal = math::reciprocal_guess(divisor);
    const uint32x4_t divisors = __arm_vdupq_n_u32(divisor);
    for (std::size_t t = 0; t < n; t += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - t));
      const uint32x4_t terms =
          __arm_vreinterpretq_u32_s32(__arm_vldrwq_gather_shifted_offset_z_s32(table, offsets(t, lanes), lanes));
      const uint32x4_t numerators = __arm_vaddq_n_u32(__arm_vshlq_n_u32(terms, 9), static_cast<std::uint32_t>(sum));
      uint32x4_t quotients = __arm_vshrq_n_u32(__arm_vmulhq_u32(numerators, __arm_vdupq_n_u32(reciprocal)), 8);
      const uint32x4_t remainders = __arm_vsubq_u32(numerators, __arm_vmulq_u32(quotients, divisors));
      quotients = __arm_vaddq_m_n_u32(quotients, quotients, 1u, __arm_vcmpcsq_u32(remainders, divisors));
      const int32x4_t weights =
          __arm_vminq_s32(__arm_vsubq_n_s32(__arm_vreinterpretq_s32_u32(quotients), 128), __arm_vdupq_n_s32(127));
      __arm_vstrbq_p_s32(ws + t, weights, lanes);
    }
  }

  /// The output of 4 requantized lanes: v plus the zero point, saturated to [-128, 127] (`vqadd`, then `vqshl #24`
  /// and `vshr #24`), for a `vstrb.32` of each lane's low byte.
  // Rationale: the clamp by a saturating shift left by 24 and back needs no constant registers, where `vmax`/`vmin`
  // with -128 and 127 held two q registers that the product's loop then shuffled (4 `vmov` a pass).
  CTATTN_ALWAYS_INLINE static int32x4_t output_lanes(int32x4_t v, std::int32_t zero) noexcept {
    return __arm_vshrq_n_s32(__arm_vqshlq_n_s32(__arm_vqaddq_n_s32(v, zero), 24), 24);
  }

  /// Whether `scaled<M>` takes M: a non-negative multiplier whose shift is in [-31, 31].
  static constexpr bool takes(math::quantized_multiplier m) noexcept {
    return m.multiplier >= 0 && m.shift >= -31 && m.shift <= 31;
  }
  /// Whether `add` takes these multipliers (each one `scaled` takes).
  static constexpr bool add_takes(math::quantized_multiplier a, math::quantized_multiplier b,
                                  math::quantized_multiplier out) noexcept {
    return takes(a) && takes(b) && takes(out);
  }

  /// x times the multiplier M on 4 lanes, `output_requantizer::scaled`'s value: `vshl` by a left shift, `vqrdmulh`
  /// (TFLite's doubling high multiply), and for a right shift `vshr #31` and `vadd` (one less for a negative value)
  /// then `vrshr` (rounding right shift): ties away from zero.
  template <math::quantized_multiplier M>
    requires(takes(M))
  CTATTN_ALWAYS_INLINE static int32x4_t scaled(int32x4_t x) noexcept {
    if constexpr (M.shift > 0) x = __arm_vshlq_n_s32(x, M.shift);
    x = __arm_vqrdmulhq_n_s32(x, M.multiplier);
    if constexpr (M.shift < 0) {
      // The high product is above -2^31 (M below 2^31), so subtracting 1 cannot wrap.
      x = __arm_vaddq_s32(x, __arm_vshrq_n_s32(x, 31));
      x = __arm_vrshrq_n_s32(x, -M.shift);
    }
    return x;
  }

  /// kernels/int8.hpp's `int8_add_rows` at run time over n elements, 4 a step (`vldrb.s32` loads 4 int8 into int32
  /// lanes), the last n % 4 by tail-predicated loads and stores.
  template <math::quantized_multiplier A, math::quantized_multiplier B, int LeftShift, math::quantized_multiplier Out>
    requires(add_takes(A, B, Out))
  static void add(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                  std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - i));
      const int32x4_t va = input_scaled<A, LeftShift>(__arm_vsubq_n_s32(__arm_vldrbq_z_s32(a + i, lanes), a_zero));
      const int32x4_t vb = input_scaled<B, LeftShift>(__arm_vsubq_n_s32(__arm_vldrbq_z_s32(b + i, lanes), b_zero));
      __arm_vstrbq_p_s32(out + i, output_lanes(scaled<Out>(__arm_vaddq_s32(va, vb)), out_zero), lanes);
    }
  }

  /// An ADD input's term, `scaled<M>` of d 2^LeftShift (d the input less its zero point). For M = 2^30 2^s, s <= 0
  /// (the larger-scale input's multiplier, 1/2, is 2^30 2^0), with LeftShift - 1 + s >= 0: d 2^(LeftShift - 1 + s)
  /// by one `vshl`, the same value, as the doubling high multiply of an even number by 2^30 halves it exactly and
  /// the rounding shift of a multiple of 2^-s by -s is exact.
  template <math::quantized_multiplier M, int LeftShift>
  CTATTN_ALWAYS_INLINE static int32x4_t input_scaled(int32x4_t d) noexcept {
    if constexpr (M.multiplier == (std::int32_t{1} << 30) && M.shift <= 0 && LeftShift - 1 + M.shift >= 0) {
      return __arm_vshlq_n_s32(d, LeftShift - 1 + M.shift);
    } else {
      return scaled<M>(__arm_vshlq_n_s32(d, LeftShift));
    }
  }

  /// Whether `multiply` takes the multiplier M: `scaled` takes it, and a left shift keeps every product (at most
  /// 255^2 < 2^16 in magnitude) within int32.
  static constexpr bool multiply_takes(math::quantized_multiplier m) noexcept { return takes(m) && m.shift <= 15; }

  /// kernels/int8.hpp's `int8_multiply_rows` at run time over n elements, 4 a step: each operand's lanes loaded
  /// widened to int32 (`vldrb.s32`) less its zero point, multiplied (`vmul`: |a - a_zero| |b - b_zero| <= 255^2),
  /// scaled by M (`scaled`: `output_requantizer::scaled`'s value) and given the output's zero point and clamp
  /// (`output_lanes`); the last n % 4 by tail-predicated loads and stores.
  template <math::quantized_multiplier M>
    requires(multiply_takes(M))
  static void multiply(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                       std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - i));
      const int32x4_t va = __arm_vsubq_n_s32(__arm_vldrbq_z_s32(a + i, lanes), a_zero);
      const int32x4_t vb = __arm_vsubq_n_s32(__arm_vldrbq_z_s32(b + i, lanes), b_zero);
      __arm_vstrbq_p_s32(out + i, output_lanes(scaled<M>(__arm_vmulq_s32(va, vb)), out_zero), lanes);
    }
  }

  /// Whether `requantize_values` takes the multiplier M (`scaled` takes it).
  static constexpr bool requantize_values_take(math::quantized_multiplier m) noexcept { return takes(m); }

  /// kernels/int8.hpp's `requantize_values` at run time: n sums, 4 a step (`vldrw`), scaled by M (`scaled`) and
  /// given the output's zero point and clamp (`output_lanes`); the last n % 4 by tail-predicated loads and stores.
  template <math::quantized_multiplier M>
    requires(requantize_values_take(M))
  static void requantize_values(const std::int32_t* sums, std::int32_t zero, std::int8_t* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - i));
      __arm_vstrbq_p_s32(out + i, output_lanes(scaled<M>(__arm_vldrwq_z_s32(sums + i, lanes)), zero), lanes);
    }
  }

  /// kernels/int8.hpp's `int8_rotate_heads` at run time: 4 pairs a step, their first and second values loaded
  /// widened (`vldrb.s32`; interleaved pairs by a gather at offsets 0, 2, 4, 6 and 1, 3, 5, 7) less the zero
  /// point, the Q15 cosines and sines by `vldrh.s32`, the products by `vmul` (|a c| <= 255 2^15), rounded by
  /// `vrshr #15` (half up, as (v + 2^14) >> 15), given the zero point and clamp (`output_lanes`) and stored back
  /// (a scatter when interleaved); the last pairs of a head by tail predication.
  template <std::size_t HeadDim, bool Interleaved>
  static constexpr bool rotate_heads_take = true;  // every head width, the last pairs by tail predication
  template <std::size_t HeadDim, bool Interleaved>
  static void rotate_heads(std::int8_t* row, std::size_t heads, const std::int16_t* cos, const std::int16_t* sin,
                           std::int32_t zero) noexcept {
    constexpr std::size_t pairs = HeadDim / 2;
    const uint32x4_t evens = __arm_vmulq_n_u32(__arm_vidupq_n_u32(0, 1), 2);
    const uint32x4_t odds = __arm_vaddq_n_u32(evens, 1);
    for (std::size_t h = 0; h < heads; ++h) {
      std::int8_t* head = row + h * HeadDim;
      for (std::size_t p = 0; p < pairs; p += 4) {
        const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(pairs - p));
        std::int8_t* first = Interleaved ? head + 2 * p : head + p;
        std::int8_t* second = Interleaved ? head + 2 * p : head + p + pairs;
        int32x4_t a;
        int32x4_t b;
        if constexpr (Interleaved) {
          a = __arm_vldrbq_gather_offset_z_s32(first, evens, lanes);
          b = __arm_vldrbq_gather_offset_z_s32(second, odds, lanes);
        } else {
          a = __arm_vldrbq_z_s32(first, lanes);
          b = __arm_vldrbq_z_s32(second, lanes);
        }
        a = __arm_vsubq_n_s32(a, zero);
        b = __arm_vsubq_n_s32(b, zero);
        const int32x4_t c = __arm_vldrhq_z_s32(cos + p, lanes);
        const int32x4_t s = __arm_vldrhq_z_s32(sin + p, lanes);
        const int32x4_t a_rotated =
            output_lanes(__arm_vrshrq_n_s32(__arm_vsubq_s32(__arm_vmulq_s32(a, c), __arm_vmulq_s32(b, s)), 15), zero);
        const int32x4_t b_rotated =
            output_lanes(__arm_vrshrq_n_s32(__arm_vaddq_s32(__arm_vmulq_s32(a, s), __arm_vmulq_s32(b, c)), 15), zero);
        if constexpr (Interleaved) {
          __arm_vstrbq_scatter_offset_p_s32(first, evens, a_rotated, lanes);
          __arm_vstrbq_scatter_offset_p_s32(second, odds, b_rotated, lanes);
        } else {
          __arm_vstrbq_p_s32(first, a_rotated, lanes);
          __arm_vstrbq_p_s32(second, b_rotated, lanes);
        }
      }
    }
  }

  /// sum_t x[t] w[t] for one channel.
  template <std::size_t K>
  CTATTN_ALWAYS_INLINE static std::int32_t one_channel(const std::int8_t* x, const std::int8_t* w) noexcept {
    constexpr std::size_t whole = K - K % 16;
    std::int32_t sum = 0;
    for (std::size_t t = 0; t < whole; t += 16)
      sum = __arm_vmladavaq_s8(sum, __arm_vld1q_s8(x + t), __arm_vld1q_s8(w + t));
    if constexpr (whole < K) {
      const mve_pred16_t lanes = __arm_vctp8q(K - whole);
      sum = __arm_vmladavaq_s8(sum, __arm_vldrbq_z_s8(x + whole, lanes), __arm_vldrbq_z_s8(w + whole, lanes));
    }
    return sum;
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: passes of four channels, whose requantization runs
  /// on their four lanes at once, then the channels left one by one.
  ///
  /// | step                     | instructions (per 4 outputs)                                           |
  /// |--------------------------|------------------------------------------------------------------------|
  /// | + column and row starts  | `vadd`, and `vadd` of the row's start when there is one                |
  /// | x 2^left                 | `vshl` by each lane's left shift (0 for a multiplier below 1)          |
  /// | doubling high multiply   | `vqrdmulh`: round(2 a b / 2^32) with ties up, TFLite's SRDHM exactly    |
  /// | rounding right shift     | `vand`, `vshr #31`, `vqadd` (one less for a negative value), `vrshl`: ties away from zero |
  /// | + zero point, clamp      | `output_lanes`: `vqadd`; `vqshl #24`, `vshr #24` saturate to [-128, 127] |
  /// | store                    | `vstrb.32`: each lane's low byte                                       |
  // Rationale: the per-channel multipliers and shifts are read once per pass of channels (`vld2` splits the
  // {multiplier, shift} pairs into two vectors), outside the loop over rows; the rows then reuse them in registers.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    static_assert(sizeof(math::quantized_multiplier) == 2 * sizeof(std::int32_t));
    constexpr std::size_t whole = N - N % fc_channels;
    constexpr bool holds_row = M == 1 && K <= 64;
    const auto held = [](const std::int8_t* row) {
      if constexpr (holds_row) {
        return held_row<K>(row);
      } else {
        (void)row;
        return 0;
      }
    }(x);
    // The pass's sums of row r and channels c to c + 3, plus their column starts `bias` (and the row's start).
    const auto pass_sums = [&](std::size_t r, std::size_t c, int32x4_t bias) {
      int32x4_t v;
      if constexpr (holds_row) {
        v = __arm_vaddq_s32(four_held<K, WS>(held, w + c * WS), bias);
      } else {
        v = __arm_vaddq_s32(four_channels<K, WS>(x + r * XS, w + c * WS), bias);
      }
      if constexpr (Epilogue::row_starts) v = __arm_vaddq_n_s32(v, e.row_start[r]);
      return v;
    };
    if constexpr (Epilogue::per_channel) {
      // Rationale: where the layer's multipliers are all short (`short_multiplier`: every shift to the right), the
      // passes skip the left shift, the split of the shifts and the test of the correction's sign: 4 instructions
      // a pass fewer (a pass loop for each case, as for one multiplier below).
      const auto passes = [&]<bool Short>(std::bool_constant<Short>) {
        const int32x4_t none = __arm_vdupq_n_s32(0);
        for (std::size_t c = 0; c < whole; c += fc_channels) {
          const int32x4x2_t pairs = __arm_vld2q_s32(&e.multipliers[c].multiplier);
          const int32x4_t multiplier = pairs.val[0];
          // minus the right shift
          const int32x4_t right = Short ? pairs.val[1] : __arm_vminq_s32(pairs.val[1], none);
          const int32x4_t bias = __arm_vld1q_s32(&e.column_start[c]);
          for (std::size_t r = 0; r < M; ++r) {
            int32x4_t v = pass_sums(r, c, bias);
            if constexpr (!Short) v = __arm_vshlq_s32(v, __arm_vmaxq_s32(pairs.val[1], none));
            v = __arm_vqrdmulhq_s32(v, multiplier);
            v = __arm_vqaddq_s32(v, __arm_vshrq_n_s32(Short ? v : __arm_vandq_s32(v, right), 31));
            __arm_vstrbq_s32(y + r * YS + c, output_lanes(__arm_vrshlq_s32(v, right), e.zero));
          }
        }
      };
      if (e.short_multipliers) {
        if constexpr (takes_held_short_passes<M, K, WS, Epilogue>) {
          if constexpr (whole > 0) {
            held_short_passes(held, w, e.multipliers, e.column_start, e.zero, y, whole / fc_channels);
          }
        } else {
          passes(std::true_type{});
        }
      } else {
        passes(std::false_type{});
      }
    } else {
      // Rationale: one multiplier and shift for every channel (a tied output head): the forms that take them from
      // general registers (`vshl`, `vqrdmulh` and `vrshl` by a scalar), the correction for negative values only
      // where there is a right shift (a pass loop for each case), so that no q register holds a constant and a
      // held row keeps its 4 vectors: 48 instructions a pass of 4 channels of 64 terms, against 54
      // (Clang 14 -Os; the stories260K-shaped model's head, 128 passes a token).
      const std::int32_t multiplier = e.multipliers[0].multiplier;
      const std::int32_t left = e.multipliers[0].shift > 0 ? e.multipliers[0].shift : 0;
      const std::int32_t right = e.multipliers[0].shift < 0 ? e.multipliers[0].shift : 0;  // minus the right shift
      const auto passes = [&]<bool Rounds>(std::bool_constant<Rounds>) {
        for (std::size_t c = 0; c < whole; c += fc_channels) {
          const int32x4_t bias = __arm_vld1q_s32(&e.column_start[c]);
          for (std::size_t r = 0; r < M; ++r) {
            int32x4_t v = __arm_vqrdmulhq_n_s32(__arm_vshlq_r_s32(pass_sums(r, c, bias), left), multiplier);
            if constexpr (Rounds) v = __arm_vqaddq_s32(v, __arm_vshrq_n_s32(v, 31));
            __arm_vstrbq_s32(y + r * YS + c, output_lanes(__arm_vrshlq_n_s32(v, right), e.zero));
          }
        }
      };
      if (right < 0) {
        passes(std::true_type{});
      } else {
        passes(std::false_type{});
      }
    }
    for (std::size_t c = whole; c < N; ++c) {
      for (std::size_t r = 0; r < M; ++r) y[r * YS + c] = e(r, c, one_channel<K>(x + r * XS, w + c * WS));
    }
  }

  /// kernels/int8.hpp's `int8_lookup_rows` on one row of n values: 16 a step, each value's entry gathered from the
  /// table (`vldrb.u8` at the offsets x + 128, made by `veor` with 0x80); the tail by `vctp8`.
  static void lookup(const std::int8_t* x, std::int8_t* y, std::size_t n, const std::int8_t* table) noexcept {
    const auto* entries = reinterpret_cast<const std::uint8_t*>(table);
    const uint8x16_t flip = __arm_vdupq_n_u8(0x80);
    for (std::size_t i = 0; i < n; i += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(n - i));
      const uint8x16_t offsets = __arm_veorq_u8(__arm_vreinterpretq_u8_s8(__arm_vldrbq_z_s8(x + i, lanes)), flip);
      __arm_vstrbq_p_u8(reinterpret_cast<std::uint8_t*>(y + i),
                        __arm_vldrbq_gather_offset_z_u8(entries, offsets, lanes), lanes);
    }
  }

  /// kernels/int8.hpp's `int8_first_largest`: the largest of the n values by `vmaxv.s8` over 16 lanes a step, then
  /// the first step that holds it, its lowest lane equal to it (`vcmp.i8` eq, the predicate's lowest set bit); tails
  /// by `vctp8`. 0 when n is 0.
  // Rationale: greedy decoding's argmax over the vocabulary, once a token: 512 logits took 3,066 instructions
  // scalar (a load, a compare and a select each) on the M55.
  static std::size_t first_largest(const std::int8_t* x, std::size_t n) noexcept {
    if (n == 0) return 0;
    std::int8_t largest = -128;
    for (std::size_t t = 0; t < n; t += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(n - t));
      largest = __arm_vmaxvq_p_s8(largest, __arm_vldrbq_z_s8(x + t, lanes), lanes);
    }
    std::size_t t = 0;
    for (;; t += 16) {  // ends: some lane holds the largest
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(n - t));
      const mve_pred16_t equal = __arm_vcmpeqq_m_n_s8(__arm_vldrbq_z_s8(x + t, lanes), largest, lanes);
      if (equal != 0) return t + static_cast<std::size_t>(__builtin_ctz(equal));
    }
  }

  /// The smallest of a layer's C shifts, at most 33 (`vmin` over whole vectors, one `vminv`, the tail by
  /// `vctp32`): `layer_norm_row` takes the layer's rows when it is 32 or more, in its shorter form when 33.
  // Rationale: whole vectors by `vmin` (3 instructions a step with the loop's), one `vminv` at the end: checked at
  // every call (a row of a decoding step), where a predicated `vminv` a step took 5.
  template <std::size_t C>
  static std::int32_t layer_norm_smallest_shift(const std::int32_t* shift) noexcept {
    constexpr std::size_t whole = C - C % 4;
    int32x4_t least = __arm_vdupq_n_s32(33);
    for (std::size_t j = 0; j < whole; j += 4) least = __arm_vminq_s32(least, __arm_vld1q_s32(shift + j));
    std::int32_t smallest = __arm_vminvq_s32(33, least);
    if constexpr (whole < C) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(C - whole));
      smallest = __arm_vminvq_p_s32(smallest, __arm_vldrwq_z_s32(shift + whole, lanes), lanes);
    }
    return smallest;
  }

  /// kernels/int8.hpp's `int8_layer_norm_row_at_run_time` (steps 4 to 7 of quantized/norm.hpp's rationale)
  /// for a row of C values, 4 lanes at a time, the same bits (every row: true), for weights whose shifts are all 32 or more (weights
  /// of at most 2^8 output steps; the caller checks, and says whether every one is 33 or more: `above_32`): the
  /// products' magnitudes as unsigned 32 x 32 -> 64 bit multiplies split into their low (`vmul`) and high
  /// (`vmulh.u32`) words, as the scalar form does.
  ///
  /// | step                                | instructions (per 4 values)                                   |
  /// |-------------------------------------|---------------------------------------------------------------|
  /// | N_j = C q_j - S1, its magnitude     | `vldrb.s32`, `vmul`, `vsub`, `vabs`                            |
  /// | 4: n_j = round(|N_j| I / 2^d)       | `vshl` by 32 - d, `vrmulh.u32` where |N_j| 2^(32 - d) fits 32 bits; else `vmul`, `vmulh.u32`, low >> (d - 1) or high << (33 - d) (`vshl` by a register, a right shift when negative, 0 past 31), `vrshr #1` |
  /// | 5, 6: round(n_j |m_j| / 2^s_j)      | `vmulh.u32`, `vrshl` by each lane's 32 - s_j when every s_j >= 33; else also `vmul`, the high word shifted by 33 - s_j, the low word's top bit joined where s_j = 32 (`vorr` predicated), `vrshr #1` |
  /// | sign, + b_j                         | `veor`, `vsub` (the sign of N_j m_j); `vqadd`                  |
  /// | 7: round(A_j / 2^16) + z, clamp     | `vshr #31`, `vqadd`, `vqadd`, `vshr #16` (saturating where the scalar form holds A_j); `vqshl #24`, `vshr #24`; `vstrb.32` |
  // Rationale: for s_j >= 33 the low word of n_j |m_j| cannot reach the rounding bit, and the scalar form's
  // ((high >> (s_j - 33)) + 1) >> 1 is floor((high + 2^(s_j - 33)) / 2^(s_j - 32)), a rounding shift by s_j - 32:
  // one `vrshl` where the form that takes s_j = 32 too needs 6 instructions (the stories260K-shaped model's norms
  // are all 33 or more: 5 instructions fewer a step of 4 values). Likewise step 4 where |N_j| 2^(32 - d) fits 32
  // bits (a row's d, chosen once a row): `vrmulh.u32` rounds (|N_j| 2^(32 - d) I + 2^31) / 2^32 half up, which is
  // the scalar form's rounding of |N_j| I / 2^d, in 2 instructions against 6 (4 fewer a step).
  template <std::size_t C>
  static bool layer_norm_row(const std::int8_t* x, std::int8_t* y, std::int32_t sum, std::uint32_t inverse, int down,
                             const std::int32_t* multiplier, const std::int32_t* shift, const std::int32_t* bias,
                             std::int32_t out_zero, bool above_32) noexcept {
    const std::int32_t first = down - 1;
    const std::int32_t last_rounding = (1 << 15) + out_zero * (1 << 16);
    const uint32x4_t inverse_lanes = __arm_vdupq_n_u32(inverse);
    const auto rows = [&]<bool Above32, bool NarrowProduct>(std::bool_constant<Above32>,
                                                            std::bool_constant<NarrowProduct>) {
      const int32x4_t shift_base = __arm_vdupq_n_s32(Above32 ? 32 : 33);
      for (std::size_t j = 0; j < C; j += 4) {
        const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(C - j));
        const int32x4_t centered =
            __arm_vsubq_n_s32(__arm_vmulq_n_s32(__arm_vldrbq_z_s32(x + j, lanes), static_cast<std::int32_t>(C)), sum);
        const uint32x4_t centered_magnitude = __arm_vreinterpretq_u32_s32(__arm_vabsq_s32(centered));
        uint32x4_t n;
        if constexpr (NarrowProduct) {
          n = __arm_vrmulhq_u32(__arm_vshlq_r_u32(centered_magnitude, 32 - down), inverse_lanes);
        } else {
          const uint32x4_t low = __arm_vmulq_u32(centered_magnitude, inverse_lanes);
          const uint32x4_t high = __arm_vmulhq_u32(centered_magnitude, inverse_lanes);
          const uint32x4_t halves =
              __arm_vorrq_u32(__arm_vshlq_r_u32(low, -first), __arm_vshlq_r_u32(high, 32 - first));
          // (halves + 1) >> 1 by `vrshr #1`: halves < 2^32 - 1, as |n_j| < 2^31.
          n = __arm_vrshrq_n_u32(halves, 1);
        }
        const int32x4_t m = __arm_vldrwq_z_s32(multiplier + j, lanes);
        const int32x4_t s = __arm_vldrwq_z_s32(shift + j, lanes);
        // |m_j| as unsigned: vabs leaves -2^31 as it is, whose bits are 2^31.
        const uint32x4_t m_magnitude = __arm_vreinterpretq_u32_s32(__arm_vabsq_s32(m));
        const uint32x4_t t_high = __arm_vmulhq_u32(n, m_magnitude);
        int32x4_t scaled;  // below 2^31: t_high < 2^30
        if constexpr (Above32) {
          scaled = __arm_vreinterpretq_s32_u32(__arm_vrshlq_u32(t_high, __arm_vsubq_s32(shift_base, s)));
        } else {
          const uint32x4_t t_low = __arm_vmulq_u32(n, m_magnitude);
          uint32x4_t v = __arm_vshlq_u32(t_high, __arm_vsubq_s32(shift_base, s));
          v = __arm_vorrq_m_u32(v, v, __arm_vshrq_n_u32(t_low, 31), __arm_vcmpeqq_n_s32(s, 32));
          scaled = __arm_vreinterpretq_s32_u32(__arm_vrshrq_n_u32(v, 1));
        }
        const int32x4_t sign = __arm_vshrq_n_s32(__arm_veorq_s32(centered, m), 31);
        const int32x4_t a_unheld =
            __arm_vqaddq_s32(__arm_vsubq_s32(__arm_veorq_s32(scaled, sign), sign), __arm_vldrwq_z_s32(bias + j, lanes));
        // Not held at +-2^30 as the scalar form holds A_j: the last rounding's two additions saturate instead
        // (`vqadd`), which gives the same output. Where |A_j| <= 2^30 nothing saturates (|A_j| + 2^15 + 2^23 + 1 <
        // 2^31); past it, the held and the saturated sums are both at least 2^30 - 2^23 - 1 in magnitude, 16,256
        // output steps or more after the shift by 16: the same clamped int8 either way.
        const int32x4_t rounded = __arm_vshrq_n_s32(
            __arm_vqaddq_n_s32(__arm_vqaddq_s32(a_unheld, __arm_vshrq_n_s32(a_unheld, 31)), last_rounding), 16);
        __arm_vstrbq_p_s32(y + j, __arm_vshrq_n_s32(__arm_vqshlq_n_s32(rounded, 24), 24), lanes);
      }
    };
    // |N_j| < 255 C < 2^b, so |N_j| 2^(32 - d) fits 32 bits where b <= d <= 32.
    constexpr int magnitude_bits = std::bit_width(255u * C);
    const bool narrow_product = down >= magnitude_bits && down <= 32;
    if (above_32) {
      if (narrow_product) {
        rows(std::true_type{}, std::true_type{});
      } else {
        rows(std::true_type{}, std::false_type{});
      }
    } else {
      if (narrow_product) {
        rows(std::false_type{}, std::true_type{});
      } else {
        rows(std::false_type{}, std::false_type{});
      }
    }
    return true;
  }
};

/// Int4 weights on Helium (kernels/int4.hpp): unpacked 32 a step, then the int8 product kernel above.
struct helium_int4_ops : int4_ops_defaults {
  static constexpr bool has_unpack = true;
  /// `count` int4 values (an even count) from `packed`, two a byte, low nibble first, into `values` as int8: per 16
  /// bytes, `vshl` and `vshr` sign-extend the low nibbles, `vshr` the high ones, and `vst2` interleaves them; the
  /// last values one at a time (`kernels::int4_value`).
  static void unpack(const std::uint8_t* packed, std::int8_t* values, std::size_t count) noexcept {
    const std::size_t bytes = count / 2;
    std::size_t i = 0;
    for (; i + 16 <= bytes; i += 16) {
      const int8x16_t b = __arm_vreinterpretq_s8_u8(__arm_vld1q_u8(packed + i));
      int8x16x2_t pair;
      pair.val[0] = __arm_vshrq_n_s8(__arm_vshlq_n_s8(b, 4), 4);
      pair.val[1] = __arm_vshrq_n_s8(b, 4);
      __arm_vst2q_s8(values + 2 * i, pair);
    }
    for (std::size_t v = 2 * i; v < count; ++v) values[v] = kernels::int4_value(packed, v);
  }
};

struct helium_int16_ops;  // kernels/helium_int16.hpp

/// The int8 table's helium row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::helium> {
  static constexpr const char* name = "helium";
  using ops = helium_int8_ops;
  using product_ops = helium_int8_ops;
  using packed_ops = void;
  using int4_ops = helium_int4_ops;
  using int16_ops = helium_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (...)

#endif  // CTATTN_KERNELS_HELIUM_INT8_HPP
