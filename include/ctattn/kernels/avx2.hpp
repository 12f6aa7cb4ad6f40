// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_AVX2_HPP
#define CTATTN_KERNELS_AVX2_HPP

/// \file
/// The AVX2+FMA backend (x86-64): the vector operations of kernels/detail/simd.hpp on 8 float lanes in ymm
/// registers. The operations and their contracts are those of kernels/avx512.hpp; tails are `vmaskmovps`.
///
/// Example: `ctattn::detail::avx2_ops::reduce_add(ctattn::detail::avx2_ops::broadcast(1.0f)) == 8.0f`.

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"

#include "ctattn/kernels/detail/avx_lanes.hpp"
#include "ctattn/kernels/detail/exp_constants.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

// Empty unless the target has AVX2 and FMA (-mavx2 -mfma, -mavx512f, -march=...): kernels/backend.hpp includes it
// then.
#if defined(__AVX2__) && defined(__FMA__)

namespace ctattn::detail {

struct avx2_ops : float_ops_defaults {
  static constexpr bool has_transpose_sum = true;
  static constexpr bool has_transpose = true;
  using reg = __m256;
  static constexpr std::size_t lanes = 8;
  // 16 registers: 6 x 2 accumulators, two loads and a broadcast.
  static constexpr std::size_t tile_rows = 6;
  static constexpr std::size_t tile_vectors = 2;
  // The transposed product's tile: 2 rows of a against 4 rows of b, 8 dot products reduced by one transpose_sum.
  static constexpr std::size_t dot_tile_rows = 2;
  static constexpr std::size_t dot_rows = 4;
  static constexpr std::size_t key_buffer_floats = 8192;

  static reg zero() noexcept { return _mm256_setzero_ps(); }
  static reg broadcast(float x) noexcept { return _mm256_set1_ps(x); }
  static reg load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, reg x) noexcept { _mm256_storeu_ps(p, x); }
  static __m256i first(std::size_t n) noexcept {
    // Lane l is selected (sign bit set) when l < n.
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    const __m256i mask = first(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, mask), _mm256_castsi256_ps(mask));
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept { _mm256_maskstore_ps(p, first(n), x); }
  static reg add(reg a, reg b) noexcept { return _mm256_add_ps(a, b); }
  static reg mul(reg a, reg b) noexcept { return _mm256_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return _mm256_fmadd_ps(a, b, c); }
  static reg div(reg a, reg b) noexcept { return _mm256_div_ps(a, b); }
  static reg max(reg a, reg b) noexcept { return _mm256_max_ps(a, b); }
  static float reduce_add(reg x) noexcept { return sum_of_lanes(x); }
  static float reduce_max(reg x) noexcept { return largest_of_lanes(x); }

  // Lane l of the result is the sum of x[l]'s lanes (as avx512_ops::transpose_sum): halves, then pairs of lanes;
  // the network leaves the sum of its input m in lane 4 (m % 2) + m / 2, so input m is x[order(m)].
  static reg transpose_sum(const reg (&x)[8]) noexcept {
    reg t[4];
    for (std::size_t m = 0; m < 4; ++m) {
      const reg a = x[order(2 * m)];
      const reg b = x[order(2 * m + 1)];
      t[m] = _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31));
    }
    reg u[2];
    for (std::size_t m = 0; m < 2; ++m) {
      u[m] = _mm256_add_ps(_mm256_shuffle_ps(t[2 * m], t[2 * m + 1], 0x44),
                           _mm256_shuffle_ps(t[2 * m], t[2 * m + 1], 0xEE));
    }
    return _mm256_add_ps(_mm256_shuffle_ps(u[0], u[1], 0x88), _mm256_shuffle_ps(u[0], u[1], 0xDD));
  }
  static constexpr std::size_t order(std::size_t m) noexcept { return 4 * (m % 2) + m / 2; }

  // x becomes its transpose (as avx512_ops::transpose): pairs of lanes, pairs of pairs, then 128-bit halves.
  static void transpose(reg (&x)[8]) noexcept {
    reg t[8];
    for (std::size_t m = 0; m < 8; m += 2) {
      t[m] = _mm256_unpacklo_ps(x[m], x[m + 1]);
      t[m + 1] = _mm256_unpackhi_ps(x[m], x[m + 1]);
    }
    for (std::size_t m = 0; m < 8; m += 4) {
      x[m] = _mm256_shuffle_ps(t[m], t[m + 2], 0x44);
      x[m + 1] = _mm256_shuffle_ps(t[m], t[m + 2], 0xEE);
      x[m + 2] = _mm256_shuffle_ps(t[m + 1], t[m + 3], 0x44);
      x[m + 3] = _mm256_shuffle_ps(t[m + 1], t[m + 3], 0xEE);
    }
    for (std::size_t q = 0; q < 4; ++q) {
      t[q] = _mm256_permute2f128_ps(x[q], x[q + 4], 0x20);
      t[q + 4] = _mm256_permute2f128_ps(x[q], x[q + 4], 0x31);
    }
    for (std::size_t m = 0; m < 8; ++m) x[m] = t[m];
  }

  // The method of avx512_ops::exp; 2^n is built in the exponent field ((n + 127) << 23), valid because inputs
  // below `lowest` (n < -126) are replaced by 0 and inputs are at most 0 in every caller (clamped to 88 here).
  static reg exp(reg x) noexcept {
    // Rationale: min(88, x) with x second returns x when x is NaN, so NaN still reaches the result.
    const reg clamped = _mm256_min_ps(_mm256_set1_ps(88.0f), x);
    const reg n = _mm256_round_ps(_mm256_mul_ps(clamped, _mm256_set1_ps(exp_constants::log2e)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    reg r = _mm256_fnmadd_ps(n, _mm256_set1_ps(exp_constants::ln2_high), clamped);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(exp_constants::ln2_low), r);
    reg p = _mm256_set1_ps(exp_constants::c7);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    const reg result = _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
    const reg underflow = _mm256_cmp_ps(x, _mm256_set1_ps(exp_constants::lowest), _CMP_LT_OQ);
    return _mm256_blendv_ps(result, _mm256_setzero_ps(), underflow);
  }
};

/// The float table's avx2 row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::avx2> {
  static constexpr const char* name = "avx2";
  using ops = avx2_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__) && defined(__FMA__)

#endif  // CTATTN_KERNELS_AVX2_HPP
