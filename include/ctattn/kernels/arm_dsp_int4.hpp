// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ARM_DSP_INT4_HPP
#define CTATTN_KERNELS_ARM_DSP_INT4_HPP

/// \file
/// The Cortex-M DSP extension's kernel for int4 weights with int8 inputs (kernels/int4.hpp's
/// `int4_fully_connected`): the packed weights read straight from flash, 8 a word, each pair of nibbles widened to
/// the two 16-bit halves `smlad` multiplies, with no unpacked copy.
///
/// | step                                   | instructions            | what it does                               |
/// |----------------------------------------|-------------------------|--------------------------------------------|
/// | load 8 int4                            | `ldr`                   | one word: values 0..7 of a row's 8 terms   |
/// | the low nibbles, each times 16         | `lsl`, `and`            | bytes n0 16, n2 16, n4 16, n6 16           |
/// | values (0, 4) and (2, 6) in halves     | `sxtb16`, `sxtb16 ror #8` | two's complement nibbles sign-extended   |
/// | the high nibbles, each times 16        | `and`                   | bytes n1 16, n3 16, n5 16, n7 16           |
/// | values (1, 5) and (3, 7) in halves     | `sxtb16`, `sxtb16 ror #8` |                                          |
/// | multiply and add, each row             | 2 `ldrd`, 4 `smlad`     | the row's 8 inputs, widened in that order  |
///
/// Each value is read as 16 times itself (its nibble in a byte's high half), so a row's sum is 16 times the true one
/// and one arithmetic shift makes it exact. The rows of x are widened once per block of up to 6 rows, their terms
/// paired as the weights' halves are ((0, 4), (2, 6), (1, 5), (3, 7) of every 8), and each channel runs against
/// all of them: 45 instructions per 48 multiply-accumulates in a block of 6 rows, against 42 for int8 weights.
///
/// Takes rows of K terms where K is a multiple of 8 (each row's weights then start on a byte, 4 words a row of 32)
/// and at most `arm_dsp_widened_max_terms`; kernels/int4.hpp gives other widths to the int8 kernel on unpacked
/// blocks. Built only where the compiler defines `__ARM_FEATURE_DSP`. Tested on the target by the firmware boards
/// (int8_kernel_cases: every width, block and rest against the formula).
///
/// Example: `static_assert(ctattn::detail::arm_dsp_int4_ops::takes<32> && !ctattn::detail::arm_dsp_int4_ops::takes<12>);`

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/arm_dsp_int8.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int4_ops : int4_ops_defaults {
  static constexpr bool has_fully_connected = true;
  /// Terms per packed word.
  static constexpr std::size_t step = 8;
  /// The most rows of x a widened block holds.
  static constexpr std::size_t block_rows = 6;
  /// Whether rows of K terms take this kernel.
  template <std::size_t K>
  static constexpr bool takes = K >= step && K % step == 0 && K <= arm_dsp_widened_max_terms;

  /// R rows of x (XS bytes apart) widened into `out` in the order `block_steps` reads them: for each 8 terms, each
  /// row's (x0, x4) and (x2, x6) halves, then each row's (x1, x5) and (x3, x7).
  template <std::size_t K, std::size_t XS, std::size_t R>
  CTATTN_ALWAYS_INLINE static void widen_rows(const std::int8_t* x, std::int32_t* out) noexcept {
    for (std::size_t t = 0; t < K; t += step) {
      std::uint32_t odd[R][2];
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t low = arm_dsp_int8_ops::load_word(x + r * XS + t);
        const std::uint32_t high = arm_dsp_int8_ops::load_word(x + r * XS + t + 4);
        const auto e0 = static_cast<std::uint32_t>(arm_dsp_int8_ops::even_bytes(low));   // x0, x2
        const auto e1 = static_cast<std::uint32_t>(arm_dsp_int8_ops::even_bytes(high));  // x4, x6
        const auto o0 = static_cast<std::uint32_t>(arm_dsp_int8_ops::odd_bytes(low));    // x1, x3
        const auto o1 = static_cast<std::uint32_t>(arm_dsp_int8_ops::odd_bytes(high));   // x5, x7
        out[2 * r] = std::bit_cast<std::int32_t>((e0 & 0xFFFFu) | (e1 << 16));
        out[2 * r + 1] = std::bit_cast<std::int32_t>((e1 & 0xFFFF0000u) | (e0 >> 16));
        odd[r][0] = (o0 & 0xFFFFu) | (o1 << 16);
        odd[r][1] = (o1 & 0xFFFF0000u) | (o0 >> 16);
      }
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        out[2 * R + 2 * r] = std::bit_cast<std::int32_t>(odd[r][0]);
        out[2 * R + 2 * r + 1] = std::bit_cast<std::int32_t>(odd[r][1]);
      }
      out += 4 * R;
    }
  }

  /// 16 times the raw sums of R <= 6 widened rows at xw (`widen_rows`) against one channel's K / 8 packed words
  /// at w, into s.
  // Rationale: in assembly for the reason arm_dsp_int8_ops::block_steps gives: 6 accumulators, the packed word,
  // two widened halves of it, a pair of x's words (`ldrd`), the two pointers and the count are 14 registers, the
  // core's 13 and the link register (saved by the compiler around the block, as the clobber asks). The rows past R
  // are left out by the assembler (`.if`).
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void block_steps(const std::int32_t* xw, const std::uint8_t* w,
                                               std::int32_t (&s)[block_rows]) noexcept {
    static_assert(R >= 1 && R <= block_rows && takes<K>);
    std::size_t steps = K / step;
    std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    std::uint32_t word, half_a, half_b, x_a, x_b;
#define CTATTN_ARM_DSP_INT4_ROW(N)         \
  ".if %c[rows] > " #N                     \
  "\n\t"                                   \
  "ldrd %[xa], %[xb], [%[x]], #8\n\t"      \
  "smlad %[s" #N "], %[xa], %[ha], %[s" #N \
  "]\n\t"                                  \
  "smlad %[s" #N "], %[xb], %[hb], %[s" #N \
  "]\n\t"                                  \
  ".endif\n\t"
    asm volatile(
        "1:\n\t"
        "ldr %[word], [%[w]], #4\n\t"
        "lsl %[ha], %[word], #4\n\t"
        "and %[ha], %[ha], #0xF0F0F0F0\n\t"
        "sxtb16 %[hb], %[ha], ror #8\n\t"
        "sxtb16 %[ha], %[ha]\n\t"
        CTATTN_ARM_DSP_INT4_ROW(0) CTATTN_ARM_DSP_INT4_ROW(1) CTATTN_ARM_DSP_INT4_ROW(2)
        CTATTN_ARM_DSP_INT4_ROW(3) CTATTN_ARM_DSP_INT4_ROW(4) CTATTN_ARM_DSP_INT4_ROW(5)
        "and %[word], %[word], #0xF0F0F0F0\n\t"
        "sxtb16 %[hb], %[word], ror #8\n\t"
        "sxtb16 %[ha], %[word]\n\t"
        CTATTN_ARM_DSP_INT4_ROW(0) CTATTN_ARM_DSP_INT4_ROW(1) CTATTN_ARM_DSP_INT4_ROW(2)
        CTATTN_ARM_DSP_INT4_ROW(3) CTATTN_ARM_DSP_INT4_ROW(4) CTATTN_ARM_DSP_INT4_ROW(5)
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [x] "+r"(xw),
          [w] "+r"(w), [steps] "+r"(steps), [word] "=&r"(word), [ha] "=&r"(half_a), [hb] "=&r"(half_b),
          [xa] "=&r"(x_a), [xb] "=&r"(x_b)
        : [rows] "n"(R)
        : "cc", "memory");
#undef CTATTN_ARM_DSP_INT4_ROW
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    s[4] = s4;
    s[5] = s5;
  }

  /// R <= 6 rows of x from row r0, widened once, against all N channels of the packing, into y.
  // Rationale: never inlined, as arm_dsp_int8_ops::widened_block, so that the widened rows are on the stack only
  // while the block runs.
  template <std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, std::size_t R, typename Epilogue>
  [[gnu::noinline]] static void widened_block(const std::int8_t* x, const std::uint8_t* packed, std::size_t r0,
                                              const Epilogue& e, std::int8_t* y) noexcept {
    alignas(8) std::int32_t xw[K / step * R * 4];
    widen_rows<K, XS, R>(x, xw);
    for (std::size_t c = 0; c < N; ++c) {
      std::int32_t sums[block_rows];
      block_steps<K, R>(xw, packed + c * (K / 2), sums);
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        // 16 times the sum, exact: one arithmetic shift, then the start (wrapping, as the int8 kernels add it).
        sums[r] = static_cast<std::int32_t>(static_cast<std::uint32_t>(sums[r] >> 4) +
                                            static_cast<std::uint32_t>(e.start(r0 + r, c)));
      }
      arm_dsp_int8_ops::requantize_column<R>(sums, e.multiplier(c), e.zero, y + c, YS);
    }
  }

  /// kernels/int4.hpp's `int4_fully_connected` at run time, for `takes<K>`: M rows of x (K bytes apart) against
  /// the N channels of the packing, into y (rows N apart), in blocks of at most 6 rows as equal as the rows allow.
  template <std::size_t M, std::size_t K, std::size_t N, typename Epilogue>
  static void fully_connected(const std::int8_t* x, const std::uint8_t* packed, Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t blocks = (M + block_rows - 1) / block_rows;
    constexpr std::size_t larger = (M + blocks - 1) / blocks;
    constexpr std::size_t smaller = M / blocks;
    constexpr std::size_t larger_blocks = M % blocks == 0 ? blocks : M % blocks;
    std::size_t r = 0;
    for (std::size_t b = 0; b < larger_blocks; ++b, r += larger) {
      widened_block<K, N, K, N, larger>(x + r * K, packed, r, e, y + r * N);
    }
    if constexpr (larger_blocks < blocks) {
      for (std::size_t b = larger_blocks; b < blocks; ++b, r += smaller) {
        widened_block<K, N, K, N, smaller>(x + r * K, packed, r, e, y + r * N);
      }
    }
  }
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_INT4_HPP
