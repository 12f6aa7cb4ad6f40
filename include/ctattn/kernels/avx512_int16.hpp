// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_AVX512_INT16_HPP
#define CTATTN_KERNELS_AVX512_INT16_HPP

/// \file
/// AVX-512's int16 products (the avx512 and avx512_vnni rows' `int16_ops`): kernels/detail/int16_simd.hpp's 16x8
/// fully-connected kernel and int16 batch matmul on 32 int16 terms a zmm register, `vpmaddwd` into 16 int32 lanes;
/// int8 weights sign-extended by `vpmovsxbw` as they are loaded.
///
/// Tested by the backend test (tests/backend/, test_backend_avx512: tests/support/int16_cases.hpp, each kernel
/// against sums taken term by term over every tail and TFLite Micro's arithmetic).
///
/// Example: `static_assert(ctattn::detail::avx512_int16_lanes::step == 32);` (on an AVX-512BW target)

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/avx2_int16.hpp"
#include "ctattn/kernels/detail/int16_simd.hpp"

#if defined(__AVX512BW__)

#include <immintrin.h>

namespace ctattn::detail {

/// kernels/detail/int16_simd.hpp's lanes on a zmm register.
struct avx512_int16_lanes {
  static constexpr std::size_t step = 32;
  // Rationale: the 16x8 tile of 2 rows x 4 channels (8 sums, 4 channels' weights and a row), as AVX2's: with 4 rows
  // (16 sums), 16x64x64 took 1.36x the time (bench_peer_speed's fc_int8 cases), each output's fold from 16 lanes
  // outweighing the weights' widening shared by more rows. The batch matmul's tile: 24 sums, two rows of a's two
  // bytes and a row of b, of the 32 zmm registers.
  static constexpr std::size_t fc_rows = 2;
  static constexpr std::size_t fc_channels = 4;
  static constexpr std::size_t product_rows = 2;
  static constexpr std::size_t product_columns = 6;
  using terms = __m512i;
  using sums = __m512i;

  static sums zero() noexcept { return _mm512_setzero_si512(); }
  static terms load(const std::int16_t* p) noexcept { return _mm512_loadu_si512(p); }
  static terms load(const std::int8_t* p) noexcept {
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static sums multiply_add(sums s, terms a, terms b) noexcept { return _mm512_add_epi32(s, _mm512_madd_epi16(a, b)); }
  static terms high_byte(terms a) noexcept { return _mm512_srai_epi16(a, 8); }
  static terms low_byte(terms a) noexcept { return _mm512_and_si512(a, _mm512_set1_epi16(0xFF)); }
  static std::int32_t total(sums s) noexcept {
    // Rationale: the halves by the zero-masked extraction, as avx512_int8_ops::halves: GCC 12's unmasked forms read
    // an uninitialized operand (-Wuninitialized).
    const __m256i half =
        _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, s, 0), _mm512_maskz_extracti64x4_epi64(0xF, s, 1));
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
    t = _mm_add_epi32(t, _mm_unpackhi_epi64(t, t));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
    return _mm_cvtsi128_si32(t);
  }
  /// t[i] += total(s[i]) x 2^Shift for 4 registers: each folded to 8 lanes, then AVX2's (`avx2_int16_lanes`).
  template <int Shift>
  static void add_totals(const sums* s, std::int64_t* t) noexcept {
    __m256i h[4];
    for (int i = 0; i < 4; ++i) {
      h[i] = _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, s[i], 0),
                              _mm512_maskz_extracti64x4_epi64(0xF, s[i], 1));
    }
    avx2_int16_lanes::add_totals<Shift>(h, t);
  }
  /// AVX2's 4-channel requantization (`avx2_int16_lanes::requantize`).
  using requantizers = avx2_int16_lanes::requantizers;
  static requantizers make_requantizers(const kernels::int64_requantizer* q) noexcept {
    return avx2_int16_lanes::make_requantizers(q);
  }
  static void requantize(const std::int64_t* total, const requantizers& q, std::int16_t* y) noexcept {
    avx2_int16_lanes::requantize(total, q, y);
  }
};

/// The avx512 and avx512_vnni rows' int16 products.
struct avx512_int16_ops : int16_simd_ops<avx512_int16_lanes> {};

}  // namespace ctattn::detail

#endif  // defined(__AVX512BW__)

#endif  // CTATTN_KERNELS_AVX512_INT16_HPP
