// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ARM_DSP_INT16_HPP
#define CTATTN_KERNELS_ARM_DSP_INT16_HPP

/// \file
/// The Cortex-M DSP extension's int16 products: the int16 batch matmul (kernels/int16.hpp's
/// `int16_product_transposed`: `smlald`, two int16 products into an int64 sum, three rows of a against each row of
/// b, four terms a load by `ldrd` where K % 4 is 0 and both operands are word-aligned), and the 16x8 fully-connected kernel (`int16_fully_connected`: int16 rows, int8 weights), the int8 backend's
/// widened blocks (kernels/arm_dsp_int8.hpp) with rows that are already
/// 16-bit. Up to 6 rows of x are paired once per block into the halves `smlad` multiplies (terms t and t + 2, t + 1
/// and t + 3 of every 4: two `pkhbt`/`pkhtb` a word pair), then each channel's int8 weights are loaded and
/// sign-extended (`sxtb16`) once for all the block's rows: 21 instructions per 24 multiply-accumulates, as for int8.
///
/// The sums are exact in int32: each `smlad` adds two products of at most 2^15 x 2^7, and a row of K <= 256 terms
/// (`arm_dsp_widened_max_terms`) sums at most 2^30 in magnitude; the int64 bias is added after, then TFLite's int64
/// requantization (`kernels::requantize_int64`). Wider rows take the scalar loop.
///
/// Built only where the compiler defines `__ARM_FEATURE_DSP`. Tested on the target by the firmware boards (the image
/// int16_cases: tests/support/int16_cases.hpp against TensorFlow Lite Micro's arithmetic, every tail of the blocks).
///
/// Example: `static_assert(ctattn::detail::arm_dsp_int16_ops::takes<32> && !ctattn::detail::arm_dsp_int16_ops::takes<300>);`
// Rationale: the batch matmul's int16 x int16 products reach 2^30 each, so its sums cannot stay in int32 (as the
// 16x8 product's do): `smlald` keeps them in int64, as CMSIS-NN's arm_batch_matmul_s16 does.

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/arm_dsp_int8.hpp"
#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int16_ops : int16_ops_defaults {
  static constexpr bool has_fully_connected = true;
  static constexpr std::size_t step = arm_dsp_int8_ops::step;
  static constexpr std::size_t block_rows = arm_dsp_int8_ops::block_rows;
  /// Whether rows of K terms take this kernel.
  template <std::size_t K>
  static constexpr bool takes = arm_dsp_int8_ops::widens<K>;
  /// The stack bytes of a block of M rows of K terms (as the int8 kernel's).
  template <std::size_t M, std::size_t K>
  static constexpr std::size_t stack_bytes = arm_dsp_product_scratch_bytes<M, K>;

  /// R rows of int16 x (K terms, XS apart) paired into `out` in the order `arm_dsp_int8_ops::block_column` reads: for
  /// each step of 4 terms, row by row, (x_t, x_t+2) then (x_t+1, x_t+3) in 16-bit halves; the last K % 4 terms
  /// padded with zeros.
  template <std::size_t K, std::size_t XS, std::size_t R>
  CTATTN_ALWAYS_INLINE static void pair_rows(const std::int16_t* x, std::int32_t* out) noexcept {
    for (std::size_t t = 0; t + step <= K; t += step) {
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        std::uint32_t words[2];
        std::memcpy(words, x + r * XS + t, sizeof words);
        out[0] = std::bit_cast<std::int32_t>((words[0] & 0xFFFFu) | (words[1] << 16));
        out[1] = std::bit_cast<std::int32_t>((words[1] & 0xFFFF0000u) | (words[0] >> 16));
        out += 2;
      }
    }
    if constexpr (K % step != 0) {
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        std::uint16_t tail[step]{};
        std::memcpy(tail, x + r * XS + K - K % step, K % step * sizeof(std::int16_t));
        out[0] = std::bit_cast<std::int32_t>(std::uint32_t{tail[0]} | (std::uint32_t{tail[2]} << 16));
        out[1] = std::bit_cast<std::int32_t>(std::uint32_t{tail[1]} | (std::uint32_t{tail[3]} << 16));
        out += 2;
      }
    }
  }

  /// R <= 6 rows of x, paired once, against all N channels of w, into y (rows YS apart).
  // Rationale: never inlined, so that the paired rows are on the stack only while the block runs (as the int8
  // kernel's widened block).
  template <std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, std::size_t R, std::size_t MC>
  [[gnu::noinline]] static void block(const std::int16_t* x, const std::int8_t (&w)[N][K],
                                      const std::int64_t (&bias)[N], const math::quantized_multiplier (&m)[MC],
                                      std::int16_t* y) noexcept {
    alignas(8) std::int32_t xw[(K + step - 1) / step * R * 2];
    pair_rows<K, XS, R>(x, xw);
    for (std::size_t c = 0; c < N; ++c) {
      std::int32_t sums[block_rows]{};
      arm_dsp_int8_ops::block_column<K, R>(xw, w[c], sums);
      const math::quantized_multiplier q = m[MC == 1 ? 0 : c];
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) y[r * YS + c] = kernels::requantize_int64(sums[r] + bias[c], q);
    }
  }

  static constexpr bool has_row_max = true;
  /// The largest of x[0, n): two values a step, a word's halves against the two running maxima by `ssub16` (which
  /// sets the GE flags of each half) and `sel` (which keeps each half's larger), 2 instructions an element against
  /// the loop's 6; then the larger half, and an odd last element.
  // Rationale: the pair in one asm statement, as `sel` reads the flags `ssub16` just set.
  static std::int16_t row_max(const std::int16_t* x, std::size_t n) noexcept {
    std::uint32_t best = 0x80008000u;
    const std::int16_t* const pairs_end = x + (n - n % 2);
    for (; x != pairs_end; x += 2) {
      std::uint32_t word;
      std::memcpy(&word, x, sizeof word);
      std::uint32_t difference;
      asm("ssub16 %[d], %[w], %[b]\n\tsel %[b], %[w], %[b]"
          : [b] "+r"(best), [d] "=&r"(difference)
          : [w] "r"(word)
          : "cc");
    }
    const auto low = static_cast<std::int16_t>(best & 0xFFFFu);
    const auto high = static_cast<std::int16_t>(best >> 16);
    std::int16_t largest = low > high ? low : high;
    if (n % 2 != 0 && *x > largest) largest = *x;
    return largest;
  }

  static constexpr bool has_product_transposed = true;
  /// Rows of a a `product_transposed` tile takes against one row of b.
  // Rationale: three rows' int64 accumulators (6 registers), the pair of b's terms and one of a's, the two pointers
  // and the count are 11 of the core's 13 registers; per 2 terms of 3 outputs, 4 loads and 3 `smlald`.
  static constexpr std::size_t product_rows = 3;

  /// s[r] += sum_t a[r K + t] b[t] for R rows of a (K apart) against one row b: `smlald` on pairs of terms, the
  /// sums in int64.
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void rows_against(const std::int16_t* a, const std::int16_t* b,
                                                std::int64_t (&s)[product_rows]) noexcept {
    constexpr std::size_t whole = K - K % 2;
    if constexpr (whole > 0) {
      if constexpr ((R - 1) * K * sizeof(std::int16_t) <= 4095) {
        pair_steps<K, R>(a, b, s);
      } else {
        const auto pair = [](const std::int16_t* p) {
          std::int32_t word;
          std::memcpy(&word, p, sizeof word);
          return word;
        };
        for (std::size_t t = 0; t < whole; t += 2) {
          const std::int32_t bw = pair(b + t);
#pragma GCC unroll 3
          for (std::size_t r = 0; r < R; ++r) s[r] = __smlald(pair(a + r * K + t), bw, s[r]);
        }
      }
    }
    if constexpr (whole < K) {
#pragma GCC unroll 3
      for (std::size_t r = 0; r < R; ++r) s[r] += std::int32_t{a[r * K + whole]} * b[whole];
    }
  }

  /// The K / 2 pairs of `rows_against`: per pair, b's and each row's word loaded (`ldr`, unaligned where K is odd)
  /// and one `smlald` a row; 7 instructions per 6 multiply-accumulates for 3 rows, and 2 for the loop per 2 pairs.
  // Rationale: in assembly because GCC 12 keeps only one of three int64 sums in registers (the others are stored and
  // loaded back at each step: 15 instructions a pair instead of 7); the operands %Q and %R are an int64's halves.
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void pair_steps(const std::int16_t* a, const std::int16_t* b,
                                              std::int64_t (&s)[product_rows]) noexcept {
    constexpr bool twice = (K / 2) % 2 == 0;
    std::size_t steps = twice ? K / 4 : K / 2;
    std::int64_t s0 = s[0], s1 = s[1], s2 = s[2];
    std::int32_t a_word, b_word;
    asm volatile(
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldr %[bw], [%[b]], #4\n\t"
        ".if %c[rows] > 1\n\t"
        "ldr %[aw], [%[a], #%c[row]]\n\t"
        "smlald %Q[s1], %R[s1], %[aw], %[bw]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 2\n\t"
        "ldr %[aw], [%[a], #%c[row2]]\n\t"
        "smlald %Q[s2], %R[s2], %[aw], %[bw]\n\t"
        ".endif\n\t"
        "ldr %[aw], [%[a]], #4\n\t"
        "smlald %Q[s0], %R[s0], %[aw], %[bw]\n\t"
        ".endr\n\t"
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [a] "+r"(a), [b] "+r"(b), [steps] "+r"(steps),
          [aw] "=&r"(a_word), [bw] "=&r"(b_word)
        : [rows] "n"(R), [row] "n"(K * sizeof(std::int16_t)), [row2] "n"(2 * K * sizeof(std::int16_t)),
          [unroll] "n"(twice ? 2 : 1)
        : "cc", "memory");
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
  }

  /// Whether rows of K terms take `quad_steps` where a and b are word-aligned: whole steps of 4 terms, and row 2's
  /// offset within `ldrd`'s reach.
  template <std::size_t K>
  static constexpr bool quads = K % 4 == 0 && 2 * K * sizeof(std::int16_t) <= 1020;

  /// `pair_steps` with both words of 4 terms loaded by one `ldrd` (a and b word-aligned): per 4 terms of 3 rows,
  /// 4 loads and 6 `smlald`, 10 instructions per 12 multiply-accumulates (`pair_steps`: 14), 2 for the loop per 8
  /// terms where K / 4 is even.
  // Rationale: `ldrd` faults on an address that is not a multiple of 4 (unaligned access covers `ldr` only), and an
  // int16 matrix is aligned to 2: `product_transposed` checks both operands once and takes `pair_steps` otherwise.
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void quad_steps(const std::int16_t* a, const std::int16_t* b,
                                              std::int64_t (&s)[product_rows]) noexcept {
    constexpr bool twice = (K / 4) % 2 == 0;
    std::size_t steps = twice ? K / 8 : K / 4;
    std::int64_t s0 = s[0], s1 = s[1], s2 = s[2];
    std::int32_t a0, a1, b0, b1;
    asm volatile(
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldrd %[b0], %[b1], [%[b]], #8\n\t"
        ".if %c[rows] > 1\n\t"
        "ldrd %[a0], %[a1], [%[a], #%c[row]]\n\t"
        "smlald %Q[s1], %R[s1], %[a0], %[b0]\n\t"
        "smlald %Q[s1], %R[s1], %[a1], %[b1]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 2\n\t"
        "ldrd %[a0], %[a1], [%[a], #%c[row2]]\n\t"
        "smlald %Q[s2], %R[s2], %[a0], %[b0]\n\t"
        "smlald %Q[s2], %R[s2], %[a1], %[b1]\n\t"
        ".endif\n\t"
        "ldrd %[a0], %[a1], [%[a]], #8\n\t"
        "smlald %Q[s0], %R[s0], %[a0], %[b0]\n\t"
        "smlald %Q[s0], %R[s0], %[a1], %[b1]\n\t"
        ".endr\n\t"
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [a] "+r"(a), [b] "+r"(b), [steps] "+r"(steps), [a0] "=&r"(a0),
          [a1] "=&r"(a1), [b0] "=&r"(b0), [b1] "=&r"(b1)
        : [rows] "n"(R), [row] "n"(K * sizeof(std::int16_t)), [row2] "n"(2 * K * sizeof(std::int16_t)),
          [unroll] "n"(twice ? 2 : 1)
        : "cc", "memory");
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
  }

  /// R <= 3 rows of a against all N rows of b, into out (rows N apart); `Quads`: by `quad_steps`.
  template <std::size_t K, std::size_t N, std::size_t R, bool Quads = false>
  static void product_rows_block(const std::int16_t* a, const std::int16_t (&b)[N][K], math::quantized_multiplier m,
                                 std::int16_t* out) noexcept {
    const kernels::int64_requantizer q{m};
    for (std::size_t j = 0; j < N; ++j) {
      std::int64_t s[product_rows]{};
      if constexpr (Quads) {
        quad_steps<K, R>(a, b[j], s);
      } else {
        rows_against<K, R>(a, b[j], s);
      }
#pragma GCC unroll 3
      for (std::size_t r = 0; r < R; ++r) out[r * N + j] = q(s[r]);
    }
  }

  /// Every block of 3 rows of a (and the last 1 or 2) against every row of b.
  template <std::size_t M, std::size_t K, std::size_t N, bool Quads>
  static void product_blocks(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K], math::quantized_multiplier m,
                             std::int16_t (&out)[M][N]) noexcept {
    std::size_t i = 0;
    for (; i + product_rows <= M; i += product_rows) product_rows_block<K, N, product_rows, Quads>(a[i], b, m, out[i]);
    if constexpr (M % product_rows == 2) product_rows_block<K, N, 2, Quads>(a[i], b, m, out[i]);
    if constexpr (M % product_rows == 1) product_rows_block<K, N, 1, Quads>(a[i], b, m, out[i]);
  }

  /// kernels/int16.hpp's `int16_product_transposed` at run time: blocks of 3 rows of a against every row of b, by
  /// `quad_steps` where K allows and both operands are word-aligned.
  template <std::size_t M, std::size_t K, std::size_t N>
  static void product_transposed(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                 math::quantized_multiplier m, std::int16_t (&out)[M][N]) noexcept {
    if constexpr (quads<K>) {
      if (((std::bit_cast<std::uintptr_t>(&a[0][0]) | std::bit_cast<std::uintptr_t>(&b[0][0])) & 3u) == 0) {
        product_blocks<M, K, N, true>(a, b, m, out);
        return;
      }
    }
    product_blocks<M, K, N, false>(a, b, m, out);
  }

  /// kernels/int16.hpp's `int16_fully_connected` at run time, for K where `takes<K>`: blocks of at most 6 rows of x,
  /// as equal as the rows allow.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  static void fully_connected(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                              const std::int64_t (&bias)[N], const math::quantized_multiplier (&m)[MC],
                              std::int16_t (&y)[M][N]) noexcept {
    constexpr std::size_t blocks = (M + block_rows - 1) / block_rows;
    constexpr std::size_t larger = (M + blocks - 1) / blocks;
    constexpr std::size_t smaller = M / blocks;
    constexpr std::size_t larger_blocks = M % blocks == 0 ? blocks : M % blocks;
    std::size_t r = 0;
    for (std::size_t b = 0; b < larger_blocks; ++b, r += larger) block<K, N, K, N, larger>(x[r], w, bias, m, y[r]);
    if constexpr (larger_blocks < blocks) {
      for (std::size_t b = larger_blocks; b < blocks; ++b, r += smaller) {
        block<K, N, K, N, smaller>(x[r], w, bias, m, y[r]);
      }
    }
  }
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_INT16_HPP
