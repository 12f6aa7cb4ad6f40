// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ARMV6M_INT8_HPP
#define CTATTN_KERNELS_ARMV6M_INT8_HPP

/// \file
/// The int8 product kernel of Armv6-M (Cortex-M0, M0+, M1: no DSP extension, no 32 x 32 -> 64 multiply, Thumb-1's
/// eight low registers): kernels/int8.hpp's `int8_product_requantized` at run time, one row of x against two
/// channels of w per call.
///
/// | step (per term of two outputs) | instructions                                                      |
/// |--------------------------------|-------------------------------------------------------------------|
/// | load x[t], w0[t], w1[t]        | 3 `ldrsb` with one index register for all three (from -K up to 0) |
/// | multiply and add               | 2 `muls`, 2 `add` into accumulators kept in high registers        |
/// | loop                           | `adds` of the index, `bne` on its flags (every second term where K is even) |
///
/// So 8.5 to 9 instructions per 2 multiply-accumulates, against about 17 for the C++ 2 x 2 tile as GCC 12 compiles it
/// for this core (which has too few low registers for the tile and spills).
///
/// Example: `ctattn::detail::armv6m_int8_ops::product_requantized<M, K, N, XS, WS, YS>(x, w, epilogue, y)`, on an
/// Armv6-M build.

#include <cstddef>

#include <cstdint>

#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

#if defined(__ARM_ARCH_6M__)

namespace ctattn::detail {

struct armv6m_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  /// sums[0] += sum_t x[t] w[t], sums[1] += sum_t x[t] w[WS + t], t < K.
  // Rationale: in assembly, with every operand pinned to a register: the loop needs seven low registers (three
  // bases, the index, the loaded x and the two products) and GCC 12 fails to allocate them when the kernel is
  // inlined ("impossible constraints"), or spills the accumulators; called once per two outputs, it keeps the
  // accumulators in r8 and r9, which `add` reaches. Unified syntax for these lines, restored to divided where the
  // compiler emits that (GCC's default for Thumb-1 without -masm-syntax-unified).
  template <std::size_t K, std::size_t WS>
  [[gnu::noinline]] static void channel_pair(const std::int8_t* x, const std::int8_t* w, std::int32_t* sums) noexcept {
    static_assert(K >= 1 && K <= 0x7FFFFFFF && WS >= K);
    register const std::int8_t* x_end asm("r0") = x + K;
    register const std::int8_t* first_end asm("r1") = w + K;
    register const std::int8_t* second_end asm("r2") = w + WS + K;
    register std::int32_t index asm("r3") = -static_cast<std::int32_t>(K);
    register std::int32_t value asm("r4");
    register std::int32_t first_product asm("r5");
    register std::int32_t second_product asm("r6");
    register std::int32_t first_sum asm("r8") = sums[0];
    register std::int32_t second_sum asm("r9") = sums[1];
    asm volatile(
        ".syntax unified\n\t"
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldrsb %[v], [%[x], %[k]]\n\t"
        "ldrsb %[p0], [%[w0], %[k]]\n\t"
        "ldrsb %[p1], [%[w1], %[k]]\n\t"
        "muls %[p0], %[v], %[p0]\n\t"
        "add %[s0], %[p0]\n\t"
        "muls %[p1], %[v], %[p1]\n\t"
        "add %[s1], %[p1]\n\t"
        "adds %[k], #1\n\t"
        ".endr\n\t"
        "bne 1b\n\t"
#if !defined(__ARM_ASM_SYNTAX_UNIFIED__) && !defined(__clang__)
        ".syntax divided\n\t"
#endif
        : [s0] "+r"(first_sum), [s1] "+r"(second_sum), [k] "+l"(index), [v] "=&l"(value), [p0] "=&l"(first_product),
          [p1] "=&l"(second_product)
        : [x] "l"(x_end), [w0] "l"(first_end), [w1] "l"(second_end), [unroll] "n"(K % 2 == 0 ? 2 : 1)
        : "cc", "memory");
    sums[0] = first_sum;
    sums[1] = second_sum;
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart); channels in pairs, each pair's requantizers set up once for
  /// all rows, then the last channel alone where N is odd.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t pairs = N / 2;
    for (std::size_t c = 0; c < 2 * pairs; c += 2) {
      const kernels::output_requantizer first = e.requantizer(c);
      const kernels::output_requantizer second = e.requantizer(c + 1);
      for (std::size_t r = 0; r < M; ++r) {
        std::int32_t sums[2] = {e.start(r, c), e.start(r, c + 1)};
        channel_pair<K, WS>(x + r * XS, w + c * WS, sums);
        y[r * YS + c] = first(sums[0]);
        y[r * YS + c + 1] = second(sums[1]);
      }
    }
    if constexpr (N % 2 == 1) {
      constexpr std::size_t c = N - 1;
      const kernels::output_requantizer last = e.requantizer(c);
      for (std::size_t r = 0; r < M; ++r) {
        std::int32_t sum = e.start(r, c);
        const std::int8_t* in = x + r * XS;
        const std::int8_t* weight = w + c * WS;
        for (std::size_t t = 0; t < K; ++t) {
          sum = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum) +
                                          static_cast<std::uint32_t>(std::int32_t{in[t]} * weight[t]));
        }
        y[r * YS + c] = last(sum);
      }
    }
  }
};

/// The int16 products of Armv6-M, in assembly. The 16x8 fully-connected kernel (kernels/int16.hpp's
/// `int16_fully_connected` at run time): as `armv6m_int8_ops`, one row of int16 x against two channels of int8 w a
/// call, `ldrsh` for the input through its own index (Thumb-1 scales no index): 10 instructions per 2
/// multiply-accumulates. Each call sums at most 256 terms in int32 (exact: products of at most 2^22); the chunks add
/// into int64 with the bias, then TFLite's int64 requantization. The int16 batch matmul (`int16_product_transposed`):
/// one row of a against one row of b a call, each product (at most 2^30) added into an int64 sum by `adds` and `adcs`:
/// 8 instructions a term.
///
/// Example: `static_assert(ctattn::detail::armv6m_int16_ops::takes<64>);` (on an Armv6-M build)
// Rationale: one function for every shape, its sizes at run time (`layer`), where the int8 kernel is a template: the
// 16x8 layer's int64 bias and requantization, inlined into an instance per shape, took the micro:bit's test image of
// the 16x8 cases past its flash (23 KiB more); the loop's instructions are the same either way.
struct armv6m_int16_ops : int16_ops_defaults {
  static constexpr bool has_fully_connected = true;
  template <std::size_t K>
  static constexpr bool takes = true;

  /// sums[0] += sum_t x[t] w[t], sums[1] += sum_t x[t] w[ws + t], t < k (1 <= k <= `kernels::int16_exact_terms`).
  // Rationale: in assembly for the reasons of `armv6m_int8_ops::channel_pair`; seven low registers (three bases, two
  // indices, the input and a product) and the sums in r8 and r9.
  [[gnu::noinline]] static void channel_pair(const std::int16_t* x, const std::int8_t* w, std::size_t ws, std::size_t k,
                                             std::int32_t* sums) noexcept {
    register const std::int16_t* x_end asm("r0") = x + k;
    register const std::int8_t* first_end asm("r1") = w + k;
    register const std::int8_t* second_end asm("r2") = w + ws + k;
    register std::int32_t index asm("r3") = -static_cast<std::int32_t>(k);
    register std::int32_t x_index asm("r4") = -2 * static_cast<std::int32_t>(k);
    register std::int32_t value asm("r5");
    register std::int32_t product asm("r6");
    register std::int32_t first_sum asm("r8") = sums[0];
    register std::int32_t second_sum asm("r9") = sums[1];
    asm volatile(
        ".syntax unified\n\t"
        "1:\n\t"
        "ldrsh %[v], [%[x], %[i]]\n\t"
        "ldrsb %[p], [%[w0], %[k]]\n\t"
        "muls %[p], %[v], %[p]\n\t"
        "add %[s0], %[p]\n\t"
        "ldrsb %[p], [%[w1], %[k]]\n\t"
        "muls %[p], %[v], %[p]\n\t"
        "add %[s1], %[p]\n\t"
        "adds %[i], #2\n\t"
        "adds %[k], #1\n\t"
        "bne 1b\n\t"
#if !defined(__ARM_ASM_SYNTAX_UNIFIED__) && !defined(__clang__)
        ".syntax divided\n\t"
#endif
        : [s0] "+r"(first_sum), [s1] "+r"(second_sum), [k] "+l"(index), [i] "+l"(x_index), [v] "=&l"(value),
          [p] "=&l"(product)
        : [x] "l"(x_end), [w0] "l"(first_end), [w1] "l"(second_end)
        : "cc", "memory");
    sums[0] = first_sum;
    sums[1] = second_sum;
  }

  /// The sums of row x (k terms) against channel w and, where `two`, channel w + k, added to total: chunks of 256
  /// terms by `channel_pair` (a lone channel as a pair with itself).
  static void channel_totals(const std::int16_t* x, const std::int8_t* w, std::size_t k, bool two,
                             std::int64_t (&total)[2]) noexcept {
    constexpr std::size_t chunk = kernels::int16_exact_terms;
    for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
      const std::size_t n = k - k0 < chunk ? k - k0 : chunk;
      std::int32_t sums[2]{};
      channel_pair(x + k0, w + k0, two ? k : 0, n, sums);
      total[0] += sums[0];
      total[1] += sums[1];
    }
  }

  /// The layer, its sizes at run time: m rows of x (k terms), n channels of w, mc multipliers (1 or n).
  [[gnu::noinline]] static void layer(const std::int16_t* x, const std::int8_t* w, const std::int64_t* bias,
                                      const math::quantized_multiplier* m, std::size_t mc, std::int16_t* y,
                                      std::size_t rows, std::size_t k, std::size_t n) noexcept {
    for (std::size_t c = 0; c < n; c += 2) {
      const bool two = c + 1 < n;
      const kernels::int64_requantizer first{m[mc == 1 ? 0 : c]};
      const kernels::int64_requantizer second{m[mc == 1 || !two ? 0 : c + 1]};
      for (std::size_t r = 0; r < rows; ++r) {
        std::int64_t total[2]{bias[c], two ? bias[c + 1] : 0};
        channel_totals(x + r * k, w + c * k, k, two, total);
        y[r * n + c] = first(total[0]);
        if (two) y[r * n + c + 1] = second(total[1]);
      }
    }
  }

  static constexpr bool has_product_transposed = true;
  /// sum_t a[t] b[t] over k >= 1 terms in int64: one row of a against one row of b.
  // Rationale: in assembly, the int64 sum in two low registers (`adcs` reaches no high one) and both rows read
  // through one index (both int16): 8 instructions a term, where the loop, compiled by GCC 12, took about 21.
  [[gnu::noinline]] static std::int64_t row_product(const std::int16_t* a, const std::int16_t* b,
                                                    std::size_t k) noexcept {
    register const std::int16_t* a_end asm("r0") = a + k;
    register const std::int16_t* b_end asm("r1") = b + k;
    register std::int32_t index asm("r2") = -2 * static_cast<std::int32_t>(k);
    register std::int32_t value asm("r3");
    register std::int32_t product asm("r4");
    register std::uint32_t low asm("r5") = 0;
    register std::uint32_t high asm("r6") = 0;
    asm volatile(
        ".syntax unified\n\t"
        "1:\n\t"
        "ldrsh %[v], [%[a], %[i]]\n\t"
        "ldrsh %[p], [%[b], %[i]]\n\t"
        "muls %[p], %[v], %[p]\n\t"
        "asrs %[v], %[p], #31\n\t"
        "adds %[lo], %[p]\n\t"
        "adcs %[hi], %[v]\n\t"
        "adds %[i], #2\n\t"
        "bne 1b\n\t"
#if !defined(__ARM_ASM_SYNTAX_UNIFIED__) && !defined(__clang__)
        ".syntax divided\n\t"
#endif
        : [lo] "+l"(low), [hi] "+l"(high), [i] "+l"(index), [v] "=&l"(value), [p] "=&l"(product)
        : [a] "l"(a_end), [b] "l"(b_end)
        : "cc", "memory");
    return static_cast<std::int64_t>((std::uint64_t{high} << 32) | low);
  }

  /// The int16 batch matmul, its sizes at run time: rows x n outputs, each row of a (k terms) against each row of b.
  [[gnu::noinline]] static void product(const std::int16_t* a, const std::int16_t* b, math::quantized_multiplier m,
                                        std::int16_t* out, std::size_t rows, std::size_t k, std::size_t n) noexcept {
    const kernels::int64_requantizer q{m};
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < n; ++j) out[i * n + j] = q(row_product(a + i * k, b + j * k, k));
    }
  }

  /// kernels/int16.hpp's `int16_product_transposed` at run time: `row_product` for each output.
  template <std::size_t M, std::size_t K, std::size_t N>
  static void product_transposed(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                 math::quantized_multiplier m, std::int16_t (&out)[M][N]) noexcept {
    product(&a[0][0], &b[0][0], m, &out[0][0], M, K, N);
  }

  /// kernels/int16.hpp's `int16_fully_connected` at run time: channels in pairs over every row, then the last
  /// channel where N is odd.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  static void fully_connected(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                              const std::int64_t (&bias)[N], const math::quantized_multiplier (&m)[MC],
                              std::int16_t (&y)[M][N]) noexcept {
    layer(&x[0][0], &w[0][0], bias, m, MC, &y[0][0], M, K, N);
  }
};

// Rationale: Armv6-M has no integer SIMD, so no dot-product operations (`ops` is void and the other int8 kernels run
// their scalar loops); its row runs the layers' products, int8 and 16x8, in assembly.
/// The int8 table's armv6m row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::armv6m> {
  static constexpr const char* name = "armv6m";
  using ops = void;
  using product_ops = armv6m_int8_ops;
  using packed_ops = void;
  using int4_ops = void;
  using int16_ops = armv6m_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_ARCH_6M__)

#endif  // CTATTN_KERNELS_ARMV6M_INT8_HPP
