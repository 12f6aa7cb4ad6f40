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

// Rationale: Armv6-M has no integer SIMD, so no dot-product operations (`ops` is void and the other int8 kernels run
// their scalar loops); its row runs the layers' products, in assembly.
/// The int8 table's armv6m row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::armv6m> {
  static constexpr const char* name = "armv6m";
  using ops = void;
  using product_ops = armv6m_int8_ops;
  using packed_ops = void;
  using int4_ops = void;
  using int16_ops = void;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_ARCH_6M__)

#endif  // CTATTN_KERNELS_ARMV6M_INT8_HPP
