// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_AVX512_HPP
#define CTATTN_KERNELS_AVX512_HPP

/// \file
/// The AVX-512 backend (x86-64 with AVX512F): the vector operations that kernels/detail/simd.hpp builds every
/// fast kernel from, on 16 float lanes in zmm registers. Tails are masked loads and stores.
///
/// | operation                     | meaning                                                          |
/// |-------------------------------|------------------------------------------------------------------|
/// | `load(p)`, `store(p, x)`      | 16 floats, unaligned                                             |
/// | `load_partial(p, n, fill)`    | the first n floats; the other lanes hold `fill`                  |
/// | `store_partial(p, x, n)`      | the first n lanes                                                |
/// | `fma(a, b, c)`                | a b + c, one rounding                                            |
/// | `exp(x)`                      | e^x for x <= 0 within 2 ulp; 0 below -87.33; NaN stays NaN       |
/// | `reduce_add`, `reduce_max`    | across the lanes                                                 |
/// | `div`                         | a / b (correctly rounded; Helium: within 2 ulp for b in [1, 2^126]) |
///
/// Example: `ctattn::detail::avx512_ops::reduce_add(ctattn::detail::avx512_ops::broadcast(1.0f)) == 16.0f`.

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"

#include "ctattn/kernels/detail/avx_lanes.hpp"
#include "ctattn/kernels/detail/exp_constants.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

// Empty unless the target has AVX512F (-mavx512f, -mavx2 -mfma, -march=...): kernels/backend.hpp includes it then.
#if defined(__AVX512F__)

#include <immintrin.h>

namespace ctattn::detail {

struct avx512_ops : float_ops_defaults {
  static constexpr bool has_transpose_sum = true;
  static constexpr bool has_transpose = true;
  using reg = __m512;
  static constexpr std::size_t lanes = 16;
  // The product tile: rows x vectors of accumulators, with one broadcast and `tile_vectors` loads in flight, out
  // of 32 registers.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t tile_vectors = 2;
  // A panel of M rows, fewer than the tile's, takes NV vectors with its M NV sums and NV loaded vectors within 31
  // registers (the 32nd holds the broadcast): NV = 31 / (M + 1), 3 vectors for 7 rows, 7 for 3.
  // Rationale: with the tile's 16 sums, 7 rows took 2 vectors (14 sums), each panel 2 cache lines of every 2 KiB row
  // of B. On Zen 5 (two 512-bit FMA pipes) 7x512x512 then ran at 17.6 to 23.1 us from run to run (five runs
  // alternating with the change: three of them 19.8 us or more), with 3 vectors at 17.8 to 18.7 us, about 90% of the
  // FMA peak (benchmarks/bench_peer_speed, 21 repetitions each). Not measured on Zen 4.
  static constexpr std::size_t panel_registers = 31;
  // The transposed product's tile: 4 rows of a against 4 rows of b, 16 dot products reduced by one transpose_sum.
  static constexpr std::size_t dot_tile_rows = 4;
  static constexpr std::size_t dot_rows = 4;
  // Floats of packed keys the fused attention kernel keeps on the stack (32 KiB).
  static constexpr std::size_t key_buffer_floats = 8192;

  static reg zero() noexcept { return _mm512_setzero_ps(); }
  static reg broadcast(float x) noexcept { return _mm512_set1_ps(x); }
  static reg load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void store(float* p, reg x) noexcept { _mm512_storeu_ps(p, x); }
  static __mmask16 first(std::size_t n) noexcept { return static_cast<__mmask16>((1u << n) - 1u); }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), first(n), p);
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept { _mm512_mask_storeu_ps(p, first(n), x); }
  static reg add(reg a, reg b) noexcept { return _mm512_add_ps(a, b); }
  static reg mul(reg a, reg b) noexcept { return _mm512_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return _mm512_fmadd_ps(a, b, c); }
  static reg div(reg a, reg b) noexcept { return _mm512_div_ps(a, b); }
  // Rationale: the zero-masking forms (all lanes selected) are the plain operations; GCC 12's plain forms start
  // from a self-initialized register that -Wmaybe-uninitialized reports in every caller.
  static constexpr __mmask16 all = 0xFFFF;
  static reg max(reg a, reg b) noexcept { return _mm512_maskz_max_ps(all, a, b); }
  static __m256 half(reg x, int which) noexcept {
    return which == 0 ? _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(x), 0))
                      : _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(x), 1));
  }
  // The two 256-bit halves combined, then the 8-lane reductions of detail/avx_lanes.hpp (an AVX-512F target has AVX).
  static float reduce_add(reg x) noexcept { return sum_of_lanes(_mm256_add_ps(half(x, 0), half(x, 1))); }
  static float reduce_max(reg x) noexcept { return largest_of_lanes(_mm256_max_ps(half(x, 0), half(x, 1))); }

  // Lane l of the result is the sum of x[l]'s lanes: pairs of registers folded by halves, then quarters, then
  // pairs of lanes (45 operations for 16 sums). The network leaves the sum of its input m in lane
  // 4 (m % 4) + m / 4, so input m is x[order(m)].
  static reg transpose_sum(const reg (&x)[16]) noexcept {
    reg t[8];
    for (std::size_t m = 0; m < 8; ++m) {
      const reg a = x[order(2 * m)];
      const reg b = x[order(2 * m + 1)];
      t[m] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all, a, b, 0x44), _mm512_maskz_shuffle_f32x4(all, a, b, 0xEE));
    }
    reg u[4];
    for (std::size_t m = 0; m < 4; ++m) {
      u[m] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all, t[2 * m], t[2 * m + 1], 0x88),
                           _mm512_maskz_shuffle_f32x4(all, t[2 * m], t[2 * m + 1], 0xDD));
    }
    reg w[2];
    for (std::size_t m = 0; m < 2; ++m) {
      w[m] = _mm512_add_ps(_mm512_maskz_shuffle_ps(all, u[2 * m], u[2 * m + 1], 0x44),
                           _mm512_maskz_shuffle_ps(all, u[2 * m], u[2 * m + 1], 0xEE));
    }
    return _mm512_add_ps(_mm512_maskz_shuffle_ps(all, w[0], w[1], 0x88),
                         _mm512_maskz_shuffle_ps(all, w[0], w[1], 0xDD));
  }
  static constexpr std::size_t order(std::size_t m) noexcept { return 4 * (m % 4) + m / 4; }

  // x becomes its transpose: lane c of x[r] goes to lane r of x[c] (pairs of lanes, then pairs of pairs, then
  // 128-bit quarters twice).
  static void transpose(reg (&x)[16]) noexcept {
    reg t[16];
    for (std::size_t m = 0; m < 16; m += 2) {
      t[m] = _mm512_maskz_unpacklo_ps(all, x[m], x[m + 1]);
      t[m + 1] = _mm512_maskz_unpackhi_ps(all, x[m], x[m + 1]);
    }
    for (std::size_t m = 0; m < 16; m += 4) {
      x[m] = _mm512_maskz_shuffle_ps(all, t[m], t[m + 2], 0x44);
      x[m + 1] = _mm512_maskz_shuffle_ps(all, t[m], t[m + 2], 0xEE);
      x[m + 2] = _mm512_maskz_shuffle_ps(all, t[m + 1], t[m + 3], 0x44);
      x[m + 3] = _mm512_maskz_shuffle_ps(all, t[m + 1], t[m + 3], 0xEE);
    }
    for (std::size_t m = 0; m < 16; m += 8) {
      for (std::size_t q = 0; q < 4; ++q) {
        t[m + q] = _mm512_maskz_shuffle_f32x4(all, x[m + q], x[m + q + 4], 0x88);
        t[m + q + 4] = _mm512_maskz_shuffle_f32x4(all, x[m + q], x[m + q + 4], 0xDD);
      }
    }
    for (std::size_t q = 0; q < 8; ++q) {
      x[q] = _mm512_maskz_shuffle_f32x4(all, t[q], t[q + 8], 0x88);
      x[q + 8] = _mm512_maskz_shuffle_f32x4(all, t[q], t[q + 8], 0xDD);
    }
  }

  // e^x = 2^n e^r with n = round(x / ln 2) and r = x - n ln 2 in [-ln2/2, ln2/2] (ln 2 split in two parts so r is
  // exact to float precision), e^r by its Taylor polynomial of degree 7 (truncation below 6e-9 relative), and
  // 2^n applied by scalef, which gives 0 for large negative n and keeps NaN.
  static reg exp(reg x) noexcept {
    // Rationale: round to nearest by adding and taking away 1.5 * 2^23 (exact for |x log2 e| < 2^22, and -inf and
    // NaN stay what they are), rather than roundscale, whose macro form (unoptimized GCC) trips -Wsign-conversion.
    const reg rounding = _mm512_set1_ps(0x1.8p23f);
    const reg scaled = _mm512_mul_ps(x, _mm512_set1_ps(exp_constants::log2e));
    const reg n = _mm512_sub_ps(_mm512_add_ps(scaled, rounding), rounding);
    reg r = _mm512_fnmadd_ps(n, _mm512_set1_ps(exp_constants::ln2_high), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(exp_constants::ln2_low), r);
    reg p = _mm512_set1_ps(exp_constants::c7);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c5));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const reg result = _mm512_maskz_scalef_ps(all, p, n);
    // Below the smallest normal result the answer is 0 (as for -inf, where r would be NaN).
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(exp_constants::lowest), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(underflow, result, _mm512_setzero_ps());
  }
};

/// The float table's avx512 row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::avx512> {
  static constexpr const char* name = "avx512";
  using ops = avx512_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX512F__)

#endif  // CTATTN_KERNELS_AVX512_HPP
