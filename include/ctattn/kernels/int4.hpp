// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_INT4_HPP
#define CTATTN_KERNELS_INT4_HPP

/// \file
/// The kernels of int4 weights with int8 activations (`ctattn::qlinear` with `weight_format::int4`), and the one
/// place that decides how they compute. The weights are TFLite's dense int4 packing: the N x K values in row-major
/// order two per byte, value 2i in the low nibble of byte i and value 2i + 1 in its high nibble, each a two's
/// complement 4-bit number (an odd K splits a byte between two rows). The arithmetic is the int8 layer's
/// (kernels/int8.hpp) on the unpacked values: TFLite unpacks int4 weights to int8 and runs its int8
/// fully-connected operator, so the bits are the same.
///
/// | kernel                                         | computes                                                  |
/// |------------------------------------------------|-----------------------------------------------------------|
/// | `int4_value(packed, i)`                        | value i of a packing, in [-8, 7]                          |
/// | `int4_unpack_rows<B, K>(packed, first, rows)`  | rows first.. first + B - 1 of an N x K packing as int8    |
/// | `int4_fully_connected(x, packed, start, multipliers, zero, y)` | `int8_fully_connected`'s outputs from int4 weights |
///
/// How `int4_fully_connected` computes:
///   1. constant evaluation: the weights unpacked to int8, then `int8_fully_connected`'s constant form;
///   2. run time, where the build's int8 row has an int4 product that takes K (`int4_product_ops`'s
///      `fully_connected`: the Cortex-M DSP extension's, kernels/arm_dsp_int4.hpp, for K a multiple of 8): that
///      kernel, on the packed weights;
///   3. else blocks of `int4_block_channels` output channels unpacked to int8 on the stack (by the row's `unpack`
///      where it has one: Helium's, AVX2's or NEON's, 32 values a step; else the loop), each block's outputs the
///      build's int8 product kernel (`run_product_requantized`), so every backend of the int8 table runs int4 layers
///      too.
///
/// Example:
/// \code
///   const std::int8_t x[1][2]{{1, 2}};
///   const std::uint8_t w[1]{0xF3};   // the 1 x 2 weights {3, -1}
///   const std::int32_t start[1]{0};
///   const ctattn::math::quantized_multiplier one[1]{{1 << 30, 1}};
///   std::int8_t y[1][1];
///   ctattn::detail::kernels::int4_fully_connected(x, w, start, one, 0, y);   // {{1}}: 1 x 3 + 2 x -1
/// \endcode

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ctattn/kernels/arm_dsp_int4.hpp"
#include "ctattn/kernels/detail/int4_packing.hpp"
#include "ctattn/kernels/detail/target.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail {
/// The int4-weight operations of the int8 row this build runs (`int8_row::int4_ops`: the Cortex-M DSP's product,
/// kernels/arm_dsp_int4.hpp; the unpacking of Helium, AVX2 or NEON, kernels/helium_int8.hpp, avx2_int8.hpp,
/// neon_int8.hpp), or `void` where the row has none.
using int4_product_ops = int8_row::int4_ops;

/// The int4 operations as declared (kernels/detail/ops_defaults.hpp): `int4_product_ops`, or the defaults.
using int4_declared = declared_ops<int4_product_ops, int4_ops_defaults>;
}  // namespace ctattn::detail

namespace ctattn::detail::kernels {

/// rows[r][base + T] = value first_value + base + T of the packing over the pack T: one expression, one step of the
/// constant evaluators.
template <std::size_t B, std::size_t K, std::size_t Bytes, std::size_t... T>
constexpr void int4_terms_unpacked(const std::uint8_t (&packed)[Bytes], std::size_t first_value,
                                   std::int8_t (&rows)[B][K], std::size_t r, std::size_t base,
                                   std::index_sequence<T...>) noexcept {
  // Rationale: the value written out rather than by `int4_value`: Clang counts each call's statement as a step.
  ((rows[r][base + T] = static_cast<std::int8_t>(
        static_cast<int>((((first_value + base + T) % 2 == 0 ? unsigned{packed[(first_value + base + T) / 2]}
                                                             : unsigned{packed[(first_value + base + T) / 2]} >> 4) &
                          0xFu) ^
                         0x8u) -
        8)),
   ...);
}

/// Rows first.. first + B - 1 of an N x K int4 packing, unpacked into `rows` (B x K int8).
// Rationale: in constant evaluation, folds of 64 values (Clang counts a loop's every iteration against its budget of
// steps, a fold once: a loop per weight took the verified sorter with int4 weights past Clang's default million).
template <std::size_t B, std::size_t K, std::size_t Bytes>
constexpr void int4_unpack_rows(const std::uint8_t (&packed)[Bytes], std::size_t first,
                                std::int8_t (&rows)[B][K]) noexcept {
  if (std::is_constant_evaluated()) {
    constexpr std::size_t whole = K / unrolled_chunk * unrolled_chunk;
    for (std::size_t r = 0; r < B; ++r) {
      const std::size_t row_start = (first + r) * K;
      for (std::size_t base = 0; base < whole; base += unrolled_chunk) {
        int4_terms_unpacked(packed, row_start, rows, r, base, std::make_index_sequence<unrolled_chunk>{});
      }
      if constexpr (whole < K) {
        int4_terms_unpacked(packed, row_start, rows, r, whole, std::make_index_sequence<K - whole>{});
      }
    }
    return;
  }
  for (std::size_t r = 0; r < B; ++r) {
    const std::size_t base = (first + r) * K;
    for (std::size_t k = 0; k < K; ++k) rows[r][k] = int4_value(packed, base + k);
  }
}

/// How many output channels an int4 layer unpacks at a time at run time: their int8 rows take this many times K
/// bytes of stack. On a microcontroller (`microcontroller_target`) 8 (a KWT-1 feed-forward block of K = 768: 6 KiB); elsewhere 32.
// Rationale: each block is one call of the int8 product kernel, which widens or stages the rows of x once per
// call: fewer channels a block would repeat that work, more would take more stack.
inline constexpr std::size_t int4_block_channels = microcontroller_target ? 8 : 32;

/// The channels of one block of an N-channel layer: `int4_block_channels`, or N where fewer.
///
/// Example: `static_assert(ctattn::detail::kernels::int4_block_of<3> == 3);`
template <std::size_t N>
inline constexpr std::size_t int4_block_of = N < int4_block_channels ? N : int4_block_channels;

/// The stack bytes an int4 layer's product of M x K by N x K takes beyond its locals, on any backend: one block of
/// unpacked channels with the int8 product kernel's scratch for a block, or the DSP kernel's widened rows (up to 6
/// rows of K terms in int16).
///
/// Example: `static_assert(ctattn::detail::kernels::int4_product_stack_bytes<6, 64, 32> >= 64);`
template <std::size_t M, std::size_t K, std::size_t N>
inline constexpr std::size_t int4_product_stack_bytes =
    int4_block_of<N> * K + int8_product_stack_bytes<M, K, int4_block_of<N>>;

/// Whether the row's int4 product takes rows of K terms.
template <std::size_t K>
inline constexpr bool int4_kernel_takes = int4_declared::has_fully_connected && int4_declared::template takes<K>;

/// The int4 kernel Ops on M rows of x against the N channels of a packing (a template, so that a build whose row
/// has none never names it).
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, typename Epilogue>
void run_int4_kernel(const std::int8_t* x, const std::uint8_t* packed, const Epilogue& e, std::int8_t* y) noexcept {
  Ops::template fully_connected<M, K, N>(x, packed, e, y);
}

/// The row's int4 unpacking (a template, as `run_int4_kernel`).
template <typename Ops>
void run_int4_unpack(const std::uint8_t* packed, std::int8_t* values, std::size_t count) noexcept {
  Ops::unpack(packed, values, count);
}

/// Channels first.. first + B - 1 of an int4 layer at run time: unpacked, then the int8 product kernel writes
/// their B columns of y.
template <std::size_t B, std::size_t M, std::size_t K, std::size_t N, std::size_t Bytes, std::size_t MC>
void int4_channel_block(const std::int8_t (&x)[M][K], const std::uint8_t (&packed)[Bytes], std::size_t first,
                        const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                        std::int32_t zero, std::int8_t (&y)[M][N]) noexcept {
  std::int8_t rows[B][K];
  if constexpr (int4_declared::has_unpack && K % 2 == 0) {
    run_int4_unpack<int4_declared>(&packed[first * K / 2], &rows[0][0], B * K);
  } else {
    int4_unpack_rows(packed, first, rows);
  }
  const int8_epilogue<(MC > 1)> block{&start[first], nullptr, &multipliers[MC > 1 ? first : 0], zero};
  run_product_requantized<int8_product_ops, M, K, B, K, K, N>(&x[0][0], &rows[0][0], block, &y[0][first]);
}

/// The int8 fully-connected product (`int8_fully_connected`) of int4 weights: y[r][c] = requantize(start[c] +
/// sum_t x[r][t] w[c][t], multipliers[c], zero), w[c][t] value c K + t of the packing. The same bits in constant
/// evaluation and at run time, on every target.
///
/// | operand       | shape                                   |
/// |---------------|-----------------------------------------|
/// | `x`           | M x K int8                              |
/// | `packed`      | N x K int4, (N K + 1) / 2 bytes (out x in) |
/// | `start`       | N int32                                 |
/// | `multipliers` | MC: N (per channel) or 1 (per tensor)   |
/// | `y`           | M x N int8                              |
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  requires(MC == N || MC == 1)
constexpr void int4_fully_connected(const std::int8_t (&x)[M][K], const std::uint8_t (&packed)[int4_packed_bytes<N, K>],
                                    const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                                    std::int32_t zero, std::int8_t (&y)[M][N]) noexcept {
  if (std::is_constant_evaluated()) {
    std::int8_t w[N][K];
    int4_unpack_rows(packed, 0, w);
    int8_fully_connected(x, w, start, multipliers, zero, y);
    return;
  }
  if constexpr (int4_kernel_takes<K>) {
    run_int4_kernel<int4_product_ops, M, K, N>(&x[0][0], packed,
                                               int8_epilogue<(MC > 1)>{start, nullptr, multipliers, zero}, &y[0][0]);
    return;
  }
  constexpr std::size_t block = int4_block_of<N>;
  std::size_t first = 0;
  for (; first + block <= N; first += block) int4_channel_block<block>(x, packed, first, start, multipliers, zero, y);
  if constexpr (N % block != 0) int4_channel_block<N % block>(x, packed, first, start, multipliers, zero, y);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_INT4_HPP
