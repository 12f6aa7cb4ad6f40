// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_AVX2_INT16_HPP
#define CTATTN_KERNELS_AVX2_INT16_HPP

/// \file
/// AVX2's int16 products (the avx2 and avx2_vnni rows' `int16_ops`): kernels/detail/int16_simd.hpp's 16x8
/// fully-connected kernel and int16 batch matmul on 16 int16 terms a ymm register, `vpmaddwd` into 8 int32 lanes;
/// int8 weights sign-extended by `vpmovsxbw` as they are loaded.
///
/// Tested by the backend test (tests/backend/, test_backend_avx2: tests/support/int16_cases.hpp, each kernel against
/// sums taken term by term over every tail and TFLite Micro's arithmetic).
///
/// Example: `static_assert(ctattn::detail::avx2_int16_lanes::step == 16);` (on an AVX2 target)

#include <cstddef>
#include <cstdint>
#include <limits>

#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/int16_simd.hpp"

#if defined(__AVX2__)

#include <immintrin.h>

namespace ctattn::detail {

/// kernels/detail/int16_simd.hpp's lanes on a ymm register.
struct avx2_int16_lanes {
  static constexpr std::size_t step = 16;
  // Rationale: of the 16 ymm registers, the 16x8 tile takes 8 sums, 4 channels' weights and a row; the batch
  // matmul's 12 sums, a row of a's two bytes and a row of b.
  static constexpr std::size_t fc_rows = 2;
  static constexpr std::size_t fc_channels = 4;
  static constexpr std::size_t product_rows = 1;
  static constexpr std::size_t product_columns = 6;
  using terms = __m256i;
  using sums = __m256i;

  static sums zero() noexcept { return _mm256_setzero_si256(); }
  static terms load(const std::int16_t* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static terms load(const std::int8_t* p) noexcept {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static sums multiply_add(sums s, terms a, terms b) noexcept { return _mm256_add_epi32(s, _mm256_madd_epi16(a, b)); }
  static terms high_byte(terms a) noexcept { return _mm256_srai_epi16(a, 8); }
  static terms low_byte(terms a) noexcept { return _mm256_and_si256(a, _mm256_set1_epi16(0xFF)); }
  static std::int32_t total(sums s) noexcept {
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    t = _mm_add_epi32(t, _mm_unpackhi_epi64(t, t));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
    return _mm_cvtsi128_si32(t);
  }
  /// t[i] += total(s[i]) x 2^Shift for 4 registers: `vphaddd` pairs them within each 128-bit half, the halves add,
  /// and the 4 totals widen to int64 (`vpmovsxdq`).
  template <int Shift>
  static void add_totals(const sums* s, std::int64_t* t) noexcept {
    const __m256i pairs = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    const __m256i wide =
        _mm256_cvtepi32_epi64(_mm_add_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1)));
    __m256i* p = reinterpret_cast<__m256i*>(t);
    _mm256_storeu_si256(p, _mm256_add_epi64(_mm256_loadu_si256(p), _mm256_slli_epi64(wide, Shift)));
  }
  /// 4 channels' requantizers in int64 lanes: the reduced multiplier, the rounding term 2^(total - 1), the shift.
  struct requantizers {
    __m256i reduced, round, shift;
  };
  static requantizers make_requantizers(const kernels::int64_requantizer* q) noexcept {
    const auto round = [&](int j) { return std::int64_t{1} << (q[j].total - 1); };
    return {_mm256_setr_epi64x(q[0].reduced, q[1].reduced, q[2].reduced, q[3].reduced),
            _mm256_setr_epi64x(round(0), round(1), round(2), round(3)),
            _mm256_setr_epi64x(q[0].total, q[1].total, q[2].total, q[3].total)};
  }
  /// y[j] = q's j-th requantizer of total[j], 4 channels at once: the int64 product with the (positive) reduced
  /// multiplier from its low and high words (`vpmuludq`, `vpmuldq`), the rounding term added, the arithmetic right
  /// shift as a logical one of the value plus 2^63 less 2^(63 - shift) (AVX2 has no 64-bit arithmetic shift), the low
  /// words kept (TFLite's narrowing to int32) and saturated to int16 by `vpackssdw`.
  static void requantize(const std::int64_t* total, const requantizers& q, std::int16_t* y) noexcept {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(total));
    const __m256i product = _mm256_add_epi64(
        _mm256_mul_epu32(a, q.reduced), _mm256_slli_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), q.reduced), 32));
    const __m256i top = _mm256_set1_epi64x(std::numeric_limits<std::int64_t>::min());
    const __m256i shifted =
        _mm256_sub_epi64(_mm256_srlv_epi64(_mm256_xor_si256(_mm256_add_epi64(product, q.round), top), q.shift),
                         _mm256_srlv_epi64(top, q.shift));
    const __m128i low =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(shifted, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y), _mm_packs_epi32(low, low));
  }
};

/// The avx2 and avx2_vnni rows' int16 products.
struct avx2_int16_ops : int16_simd_ops<avx2_int16_lanes> {};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__)

#endif  // CTATTN_KERNELS_AVX2_INT16_HPP
