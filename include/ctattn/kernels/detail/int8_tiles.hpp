// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT8_TILES_HPP
#define CTATTN_KERNELS_DETAIL_INT8_TILES_HPP

/// \file
/// The int8 product in register tiles of plain C++: `int8_product_requantized`'s contract at run time where a
/// backend has no vector instructions for it. The scalar row (the Cortex-M3) runs it in 2 x 2 tiles (1 x 4 for one
/// row), the rv32im row (kernels/rv32im_int8.hpp) in 4 x 4; the 16x8 kernels (kernels/int16.hpp) take the tile sums
/// on int16 rows.
///
/// | function                                          | computes                                               |
/// |---------------------------------------------------|--------------------------------------------------------|
/// | `scalar_tile_sums<K, XS, WS, R, C>(x, w, sums)`   | sums[r][c] = sum_t x[r XS + t] w[c WS + t], t < K, modulo 2^32 |
/// | `scalar_tile<K, XS, WS, YS, R, C>(x, w, r0, c0, e, y)` | an R x C block of outputs: its sums, then the epilogue |
/// | `scalar_product_requantized<M, K, N, XS, WS, YS, TR, TC>(x, w, e, y)` | M x N outputs in TR x TC tiles |
///
/// Example: `ctattn::detail::kernels::scalar_product_requantized<6, 32, 32, 32, 32, 32, 2, 2>(x, w, epilogue, y)`

#include <cstddef>
#include <cstdint>

#include "ctattn/detail/config.hpp"
#include "ctattn/kernels/detail/int8_requantize.hpp"

namespace ctattn::detail::kernels {

/// The raw sums of an R x C tile, rows of x against channels of w, K >= 1 terms: `scalar_tile`'s first step. x holds
/// int8 values, or int16 ones (the 16x8 FC's tiles, kernels/int16.hpp, in chunks of at most 256 terms, whose sums
/// are exact in 32 bits).
// Rationale: the accumulators are locals and the terms are read through pointers that advance, so that GCC keeps
// the tile in registers at -Os and -O2 alike (with an index into arrays, -O2 spilled the row pointer). The loop is a
// function of its own so that the caller's loops do not compete for its registers: inlined, GCC 12 -O2 spilled two
// of the loaded terms in every step on the Cortex-M3 (15 instructions per 4 multiply-adds, not 10), and how many it
// spilled changed with code elsewhere in the caller; the call costs about 15 instructions a tile of 2 x 2 x K.
// Rationale: a loop tested at its end (K >= 1): GCC 12 -Os on RV32 tested a `for` loop at its top and jumped back
// from its end, one instruction more per term. Not unrolled: GCC 12 then loaded both steps' terms first and spilled
// four of a 4 x 4 tile's sums to the stack.
template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t R, std::size_t C, typename In>
[[gnu::noinline]] void scalar_tile_sums(const In* x, const std::int8_t* w, std::uint32_t (&sums)[R][C]) noexcept {
  static_assert(K >= 1, "scalar_tile_sums: at least one term");
  std::uint32_t s[R][C]{};
  const In* in = x;
  const std::int8_t* weight = w;
  const In* const end = x + K;
  do {
    std::int32_t values[R];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) values[r] = in[r * XS];
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) {
      const std::int32_t factor = weight[c * WS];
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) s[r][c] += static_cast<std::uint32_t>(values[r] * factor);
    }
    ++in;
    ++weight;
  } while (in != end);
#pragma GCC unroll 4
  for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) sums[r][c] = s[r][c];
  }
}

/// The R x C outputs of rows r0.. of x and channels c0.. of w: their raw sums, then the epilogue.
template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R, std::size_t C,
          typename Epilogue>
CTATTN_ALWAYS_INLINE void scalar_tile(const std::int8_t* x, const std::int8_t* w, std::size_t r0, std::size_t c0,
                                      const Epilogue& e, std::int8_t* y) noexcept {
  std::uint32_t sums[R][C];
  scalar_tile_sums<K, XS, WS, R, C>(x, w, sums);
#pragma GCC unroll 4
  for (std::size_t c = 0; c < C; ++c) {
    const output_requantizer requantize = e.requantizer(c0 + c);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
      y[r * YS + c] =
          requantize(static_cast<std::int32_t>(sums[r][c] + static_cast<std::uint32_t>(e.start(r0 + r, c0 + c))));
    }
  }
}

/// The channels c0 .. c0 + C of every row, in tiles of TR rows (the last M mod TR rows as one tile of their own).
template <std::size_t M, std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t TR, std::size_t C,
          typename Epilogue>
CTATTN_ALWAYS_INLINE void scalar_tile_column(const std::int8_t* x, const std::int8_t* w, std::size_t c0,
                                             const Epilogue& e, std::int8_t* y) noexcept {
  constexpr std::size_t whole = M - M % TR;
  // Rationale: not unrolled, so that each tile size is one call site (GCC 12 -O2 copied small loops).
#pragma GCC unroll 1
  for (std::size_t r = 0; r < whole; r += TR) {
    scalar_tile<K, XS, WS, YS, TR, C>(x + r * XS, w + c0 * WS, r, c0, e, y + r * YS + c0);
  }
  if constexpr (M % TR != 0) {
    scalar_tile<K, XS, WS, YS, M % TR, C>(x + whole * XS, w + c0 * WS, whole, c0, e, y + whole * YS + c0);
  }
}

/// The scalar product kernel: `int8_product_requantized`'s contract at run time in TR x TC tiles (each input read
/// once for TC channels, each weight for TR rows: TR + TC loads and TR TC multiply-adds per term), the rows and
/// channels left over as smaller tiles; rows of x, w and y XS, WS and YS elements apart.
///
/// | tile  | registers for sums and terms | loads, multiplies, adds per term | used by                         |
/// |-------|------------------------------|----------------------------------|---------------------------------|
/// | 2 x 2 | 4 + 3                        | 4, 4, 4                          | the scalar row (13 registers)   |
/// | 1 x 4 | 4 + 2                        | 5, 4, 4                          | the scalar row, one row of x    |
/// | 4 x 4 | 16 + 6                       | 8, 16, 16                        | rv32im (31 registers)           |
template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
          std::size_t TR = 2, std::size_t TC = 2, typename Epilogue>
void scalar_product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
  static_assert(TR >= 1 && TC >= 1, "scalar_product_requantized: tiles of at least one row and one channel");
  constexpr std::size_t whole = N - N % TC;
  // Rationale: the channels past the last pass from a constant, not the pass loop's counter: GCC 12 -O2 reported the
  // rest loop, which runs no iteration when N is even, as overflowing (-Waggressive-loop-optimizations).
  for (std::size_t c = 0; c < whole; c += TC) scalar_tile_column<M, K, XS, WS, YS, TR, TC>(x, w, c, e, y);
  if constexpr (N % TC != 0) scalar_tile_column<M, K, XS, WS, YS, TR, N % TC>(x, w, whole, e, y);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_INT8_TILES_HPP
