// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT16_SIMD_HPP
#define CTATTN_KERNELS_DETAIL_INT16_SIMD_HPP

/// \file
/// The int16 products of the desktop backends (AVX2, AVX-512, NEON), written once over a backend's lanes: the 16x8
/// fully-connected kernel (kernels/int16.hpp's `int16_fully_connected`) and the int16 batch matmul
/// (`int16_product_transposed`). A backend supplies the lanes (`L`, below); `int16_simd_ops<L>` is its row's
/// `int16_ops`.
///
/// | lanes member                  | what it is                                                            |
/// |-------------------------------|-----------------------------------------------------------------------|
/// | `step`                        | int16 terms a register holds (2 per int32 lane)                       |
/// | `fc_rows`, `fc_channels`      | the 16x8 kernel's tile: rows of x by channels of w                    |
/// | `product_rows`, `product_columns` | the batch matmul's tile: rows of a by rows of b                   |
/// | `terms`, `sums`               | a register of `step` int16 values; one of `step / 2` int32 lanes      |
/// | `zero()`                      | int32 lanes of 0                                                      |
/// | `load(const int16_t*)`        | `step` int16 values                                                   |
/// | `load(const int8_t*)`         | `step` int8 values sign-extended to int16                             |
/// | `multiply_add(s, a, b)`       | s + the products of a's and b's lanes, each int32 lane two of them    |
/// | `high_byte(a)`, `low_byte(a)` | a >> 8 (arithmetic) and a & 0xFF, lane by lane: a = 256 high + low    |
/// | `total(s)`                    | the sum of s's lanes, modulo 2^32                                     |
/// | `add_totals<Shift>(s, t)`     | t[i] += total(s[i]) x 2^Shift in int64, for 4 registers at once       |
/// | `requantizers`, `make_requantizers(q)` | 4 channels' `kernels::int64_requantizer`s, in lanes          |
/// | `requantize(total, q, y)`     | y[j] = q[j](total[j]) for 4 channels' int64 sums, stored as 4 int16   |
///
/// The arithmetic: integer sums, exact, so the bits are the loop's.
///   - 16x8: each product of int16 by int8 is at most 2^22 in magnitude, so the sum of a chunk of 256 terms is within
///     2^30. The lanes add in int32 with wrap-around and `total` adds them modulo 2^32: a sum that fits in int32 comes
///     out exact whatever the order, so each chunk's total is exact; the chunks add in int64 with the bias.
///   - int16 x int16: a product reaches 2^30 and two -32768 x -32768 products overflow the int32 pair of
///     `vpmaddwd`/`vmlal`, so each row of a is split into its high byte (in [-128, 127]) and low byte (in [0, 255]):
///     a b = 256 (high b) + low b, and each part's sum over a chunk of 256 terms is within 2^31 - 2^23 (255 x 32768 x
///     256 for the low one). The chunk's two totals are exact; 256 high + low goes into the int64 sum.
///   - the last K % step terms by the scalar loop into the same int64 sums.
///
/// Example: `static_assert(ctattn::detail::int16_simd_ops<ctattn::detail::avx2_int16_lanes>::takes<16>);` (on an
/// AVX2 target)
// Rationale: the split of a's terms costs two instructions a register for a tile's `product_columns` rows of b, and
// keeps the products in one `vpmaddwd` (one `vmlal` pair on NEON) into int32 lanes; widening every pair sum to int64
// lanes instead costs three instructions and two int64 adds per register of terms.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "ctattn/detail/config.hpp"
#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail {

/// The int16 products on a backend's lanes L (the file's comment).
template <typename L>
struct int16_simd_ops : int16_ops_defaults {
  static constexpr bool has_fully_connected = true;
  static constexpr bool has_product_transposed = true;
  /// Rows of at least one register of terms; shorter ones take kernels/int16.hpp's loop.
  template <std::size_t K>
  static constexpr bool takes = K >= L::step;
  static_assert(kernels::int16_exact_terms % L::step == 0, "a chunk is whole registers");

  /// total[i] += total of s[i] times 2^Shift for n registers: 4 at a time by `L::add_totals`, the rest one by one.
  template <int Shift, std::size_t n>
  CTATTN_ALWAYS_INLINE static void add_totals(const typename L::sums (&s)[n], std::int64_t (&total)[n]) noexcept {
#pragma GCC unroll 8
    for (std::size_t i = 0; i + 4 <= n; i += 4) L::template add_totals<Shift>(&s[i], &total[i]);
#pragma GCC unroll 4
    for (std::size_t i = n - n % 4; i < n; ++i) total[i] += std::int64_t{L::total(s[i])} * (std::int64_t{1} << Shift);
  }

  /// total[r C + c] += sum_t x[r K + t] w[c K + t] for R rows of x against C channels of w (K terms each).
  template <std::size_t K, std::size_t R, std::size_t C>
  CTATTN_ALWAYS_INLINE static void fc_tile(const std::int16_t* x, const std::int8_t* w,
                                           std::int64_t (&total)[R * C]) noexcept {
    constexpr std::size_t whole = K - K % L::step;
    for (std::size_t k0 = 0; k0 < whole; k0 += kernels::int16_exact_terms) {
      const std::size_t end = whole - k0 < kernels::int16_exact_terms ? whole : k0 + kernels::int16_exact_terms;
      typename L::sums s[R * C];
#pragma GCC unroll 16
      for (std::size_t i = 0; i < R * C; ++i) s[i] = L::zero();
      for (std::size_t k = k0; k < end; k += L::step) {
        typename L::terms wv[C];
#pragma GCC unroll 4
        for (std::size_t c = 0; c < C; ++c) wv[c] = L::load(w + c * K + k);
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) {
          const typename L::terms xv = L::load(x + r * K + k);
#pragma GCC unroll 4
          for (std::size_t c = 0; c < C; ++c) s[r * C + c] = L::multiply_add(s[r * C + c], xv, wv[c]);
        }
      }
      add_totals<0>(s, total);
    }
    if constexpr (whole < K) {
      for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t c = 0; c < C; ++c) {
          std::int32_t t = 0;
          for (std::size_t k = whole; k < K; ++k) t += std::int32_t{x[r * K + k]} * w[c * K + k];
          total[r * C + c] += t;
        }
      }
    }
  }

  /// The requantizers of C channels: each alone, and where C is 4 also in lanes.
  template <std::size_t C>
  struct channel_requantizers {
    kernels::int64_requantizer each[C];
    typename L::requantizers lanes;
  };
  template <std::size_t C, std::size_t MC, std::size_t... J>
  CTATTN_ALWAYS_INLINE static channel_requantizers<C> requantizers_of(const math::quantized_multiplier (&m)[MC],
                                                                      std::size_t c,
                                                                      std::index_sequence<J...>) noexcept {
    channel_requantizers<C> q{{kernels::int64_requantizer{m[MC == 1 ? 0 : c + J]}...}, {}};
    if constexpr (C == 4) q.lanes = L::make_requantizers(q.each);
    return q;
  }

  /// Rows i.. i + R - 1 of x against channels c.. c + C - 1 of w, with their biases, requantized into y.
  template <std::size_t R, std::size_t C, std::size_t M, std::size_t K, std::size_t N>
  CTATTN_ALWAYS_INLINE static void fc_outputs(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                              const std::int64_t (&bias)[N], const channel_requantizers<C>& q,
                                              std::size_t i, std::size_t c, std::int16_t (&y)[M][N]) noexcept {
    std::int64_t total[R * C];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (std::size_t j = 0; j < C; ++j) total[r * C + j] = bias[c + j];
    }
    fc_tile<K, R, C>(x[i], w[c], total);
    if constexpr (C == 4) {
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) L::requantize(&total[r * C], q.lanes, &y[i + r][c]);
    } else {
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (std::size_t j = 0; j < C; ++j) y[i + r][c + j] = q.each[j](total[r * C + j]);
      }
    }
  }

  /// Channels c.. c + C - 1 against every row of x: tiles of `fc_rows` rows, then the last M % fc_rows.
  // Rationale: each loop over whole tiles only where there is one (`if constexpr`): GCC -O3 warns of the tile's
  // accesses past a smaller matrix even in a loop that never runs.
  template <std::size_t C, std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  static void fc_channels(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K], const std::int64_t (&bias)[N],
                          const math::quantized_multiplier (&m)[MC], std::size_t c, std::int16_t (&y)[M][N]) noexcept {
    constexpr std::size_t R = L::fc_rows;
    const channel_requantizers<C> q = requantizers_of<C>(m, c, std::make_index_sequence<C>{});
    std::size_t i = 0;
    if constexpr (M >= R) {
      for (; i + R <= M; i += R) fc_outputs<R, C>(x, w, bias, q, i, c, y);
    }
    if constexpr (M % R != 0) fc_outputs<M % R, C>(x, w, bias, q, i, c, y);
  }

  /// kernels/int16.hpp's `int16_fully_connected` at run time: `fc_channels` (4) channels a pass over every row of x
  /// (the pass's weights stay in the cache while the rows go by), the last N % 4 in one narrower pass.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  static void fully_connected(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                              const std::int64_t (&bias)[N], const math::quantized_multiplier (&m)[MC],
                              std::int16_t (&y)[M][N]) noexcept {
    constexpr std::size_t C = L::fc_channels;
    static_assert(C == 4, "a pass's channels are requantized 4 at a time");
    std::size_t c = 0;
    if constexpr (N >= C) {
      for (; c + C <= N; c += C) fc_channels<C>(x, w, bias, m, c, y);
    }
    if constexpr (N % C != 0) fc_channels<N % C>(x, w, bias, m, c, y);
  }

  /// total[r C + c] += sum_t a[r K + t] b[c K + t] for R rows of a against C rows of b, a split into its bytes.
  template <std::size_t K, std::size_t R, std::size_t C>
  CTATTN_ALWAYS_INLINE static void product_tile(const std::int16_t* a, const std::int16_t* b,
                                                std::int64_t (&total)[R * C]) noexcept {
    constexpr std::size_t whole = K - K % L::step;
    for (std::size_t k0 = 0; k0 < whole; k0 += kernels::int16_exact_terms) {
      const std::size_t end = whole - k0 < kernels::int16_exact_terms ? whole : k0 + kernels::int16_exact_terms;
      typename L::sums high[R * C], low[R * C];
#pragma GCC unroll 16
      for (std::size_t i = 0; i < R * C; ++i) high[i] = low[i] = L::zero();
      for (std::size_t k = k0; k < end; k += L::step) {
        typename L::terms ah[R], al[R];
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) {
          const typename L::terms av = L::load(a + r * K + k);
          ah[r] = L::high_byte(av);
          al[r] = L::low_byte(av);
        }
#pragma GCC unroll 8
        for (std::size_t c = 0; c < C; ++c) {
          const typename L::terms bv = L::load(b + c * K + k);
#pragma GCC unroll 4
          for (std::size_t r = 0; r < R; ++r) {
            high[r * C + c] = L::multiply_add(high[r * C + c], ah[r], bv);
            low[r * C + c] = L::multiply_add(low[r * C + c], al[r], bv);
          }
        }
      }
      add_totals<8>(high, total);
      add_totals<0>(low, total);
    }
    if constexpr (whole < K) {
      for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t c = 0; c < C; ++c) {
          std::int64_t t = 0;
          for (std::size_t k = whole; k < K; ++k) t += std::int64_t{a[r * K + k]} * b[c * K + k];
          total[r * C + c] += t;
        }
      }
    }
  }

  /// out[i + r][j + c] for a tile of R rows of a by C rows of b.
  template <std::size_t R, std::size_t C, std::size_t M, std::size_t K, std::size_t N>
  CTATTN_ALWAYS_INLINE static void product_outputs(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                                   const kernels::int64_requantizer& q, std::size_t i, std::size_t j,
                                                   std::int16_t (&out)[M][N]) noexcept {
    std::int64_t total[R * C]{};
    product_tile<K, R, C>(a[i], b[j], total);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (std::size_t c = 0; c < C; ++c) out[i + r][j + c] = q(total[r * C + c]);
    }
  }

  /// Rows i.. i + R - 1 of a against every row of b: tiles of `product_columns` rows of b, then the last ones.
  template <std::size_t R, std::size_t M, std::size_t K, std::size_t N>
  static void product_rows_of(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                              const kernels::int64_requantizer& q, std::size_t i, std::int16_t (&out)[M][N]) noexcept {
    constexpr std::size_t C = L::product_columns;
    std::size_t j = 0;
    if constexpr (N >= C) {
      for (; j + C <= N; j += C) product_outputs<R, C>(a, b, q, i, j, out);
    }
    if constexpr (N % C != 0) product_outputs<R, N % C>(a, b, q, i, j, out);
  }

  /// kernels/int16.hpp's `int16_product_transposed` at run time: tiles of `product_rows` rows of a, each split once
  /// a register for `product_columns` rows of b.
  template <std::size_t M, std::size_t K, std::size_t N>
  static void product_transposed(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                 math::quantized_multiplier m, std::int16_t (&out)[M][N]) noexcept {
    constexpr std::size_t R = L::product_rows;
    const kernels::int64_requantizer q{m};
    std::size_t i = 0;
    if constexpr (M >= R) {
      for (; i + R <= M; i += R) product_rows_of<R>(a, b, q, i, out);
    }
    if constexpr (M % R != 0) product_rows_of<M % R>(a, b, q, i, out);
  }
};

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_DETAIL_INT16_SIMD_HPP
