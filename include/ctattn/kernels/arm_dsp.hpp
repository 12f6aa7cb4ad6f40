// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ARM_DSP_HPP
#define CTATTN_KERNELS_ARM_DSP_HPP

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
/// Built only where the compiler defines `__ARM_FEATURE_DSP` (-mcpu=cortex-m4, cortex-m7, cortex-m33, cortex-m55);
/// kernels/int8.hpp selects it where no wider backend (Helium) is selected. Tested on the target by the firmware
/// boards (docs/firmware.md): every int8 image compares its results with the compiler's, bit for bit.
///
/// Example: `ctattn::detail::arm_dsp_int8_ops::total(ctattn::detail::arm_dsp_int8_ops::zero()) == 0`.

#include <cstddef>

#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/math/fixed_point.hpp"

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstdint>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int8_ops {
  static constexpr std::size_t step = 4;
  static constexpr std::size_t rows_per_pass = 2;  // kernels/detail/int8_simd.hpp says why
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
    return {__sxtab16(offsets, std::bit_cast<std::int32_t>(word)),
            __sxtab16(offsets, std::bit_cast<std::int32_t>(std::rotr(word, 8)))};
  }
  static accumulator zero() noexcept { return 0; }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return __smlad(x.odd, y.odd, __smlad(x.even, y.even, sum));
  }
  static std::int32_t total(accumulator sum) noexcept { return sum; }

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
          [steps] "+r"(steps), [x0e] "=&r"(x0_even), [x0o] "=&r"(x0_odd), [x1e] "=&r"(x1_even),
          [x1o] "=&r"(x1_odd), [we] "=&r"(w_even), [wo] "=&r"(w_odd)
        : [row] "n"(XS), [next] "n"(WS - 4), [unroll] "n"(pairs ? 2 : 1)
        : "cc", "memory");
    sums[0][0] = s00;
    sums[0][1] = s01;
    sums[1][0] = s10;
    sums[1][1] = s11;
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart); tiles of `tile_rows` x `tile_channels`, then the rows and
  /// channels left in narrower tiles.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    // Rationale: e by value, a local whose address is not taken: the int8 stores to y may alias anything, and the
    // epilogue's members would be loaded again after each of them.
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

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_HPP
