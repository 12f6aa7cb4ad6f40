// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_AVX2_INT8_HPP
#define CTATTN_KERNELS_AVX2_INT8_HPP

/// \file
/// The AVX2 int8 backend (x86-64): the int8 operations of kernels/detail/int8_simd.hpp on 16 terms per step in ymm
/// registers, and the packed fully-connected kernels of kernels/detail/int8_packed.hpp on 8 channels per register,
/// with AVX2 alone and with AVX-VNNI. kernels/int8.hpp includes it and chooses its rows.
///
/// Example: `static_assert(ctattn::detail::avx2_int8_ops::step == 16);` (on an AVX2 target)

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/int4_packing.hpp"
#include "ctattn/kernels/detail/int8_packed.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/math/isqrt.hpp"

// The int8 operations on AVX2 (no FMA needed; kernels/int8.hpp selects them on an AVX2 target without AVX-512BW),
// and the packed int8 fully-connected kernels on 8 channels per ymm register: with AVX2 alone (also the packed kernel
// of an AVX-512 target without VNNI), and with AVX-VNNI (`vpdpbusd` on ymm, VEX-encoded: Alder Lake and later) but
// no AVX-512. kernels/int8.hpp selects them.
#if defined(__AVX2__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace ctattn::detail {

/// What both AVX2 packed kernels share: 8 channels in lane order (`int8_packed::lane_format<8, ...>`), their starts,
/// and `output_requantizer`'s arithmetic lane by lane with AVX2's instructions: the 64-bit products' shift by 31 is a
/// logical one (the low word it leaves is the same), and the saturation to int8 is two `vpack`s and a permutation.
///
/// Example: `static_assert(ctattn::detail::avx2_packed_requantization::tile_rows == 4);`
struct avx2_packed_requantization : int8_packed_ops_defaults {
  // 16 registers: tiles of up to 4 rows with up to 12 accumulators (one row: 6 blocks, 48 channels).
  static constexpr std::size_t tile_rows = 4;
  static constexpr std::size_t accumulators = 12;
  static constexpr std::size_t max_panel = 6;

  using accumulator = __m256i;
  struct requantizer {
    __m256i multiplier, left, right, right_less_one, round_bit, zero;
  };

  static accumulator load_start(const std::int32_t* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static accumulator add_row_start(accumulator start, std::int32_t row) noexcept {
    return _mm256_add_epi32(start, _mm256_set1_epi32(row));
  }
  /// The constants of the block from channel c (a multiple of 8).
  template <typename R>
  static requantizer make_requantizer(const R& r, std::size_t c, std::int32_t zero) noexcept {
    return {load_start(r.multiplier + c),     load_start(r.left + c),      load_start(r.right + c),
            load_start(r.right_less_one + c), load_start(r.round_bit + c), _mm256_set1_epi32(zero)};
  }
  /// The first `valid` lanes of sum requantized to y: `output_requantizer`'s arithmetic lane by lane.
  static void store_requantized(std::int8_t* y, accumulator sum, const requantizer& r, std::size_t valid) noexcept {
    const __m256i x = _mm256_sllv_epi32(sum, r.left);
    const __m256i rounding = _mm256_set1_epi64x(std::int64_t{1} << 30);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, r.multiplier), rounding), 31);
    const __m256i odd = _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(r.multiplier, 32)), rounding),
        31);
    const __m256i high = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    const __m256i t = _mm256_sub_epi32(high, _mm256_and_si256(_mm256_srli_epi32(high, 31), r.round_bit));
    __m256i v = _mm256_add_epi32(_mm256_srav_epi32(t, r.right),
                                 _mm256_and_si256(_mm256_srav_epi32(t, r.right_less_one), r.round_bit));
    v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(-256)), _mm256_set1_epi32(255));
    v = _mm256_add_epi32(v, r.zero);
    const __m256i words = _mm256_packs_epi32(v, v);          // per 128-bit half: its 4 values, twice
    const __m256i bytes = _mm256_packs_epi16(words, words);  // per half: its 4 values, four times
    const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    alignas(8) std::int8_t eight[8];
    _mm_storel_epi64(reinterpret_cast<__m128i*>(eight), _mm256_castsi256_si128(ordered));
    if (valid == 8) {
      std::memcpy(y, eight, 8);
    } else {
      for (std::size_t q = 0; q < valid; ++q) y[q] = eight[q];
    }
  }
  /// The requantization of 8 channels from their multipliers (count 8), or of any 8 from one (count 1): the packed
  /// form's constants (`lane_format::requantization::set`), made on the stack.
  static requantizer requantizer_of(const math::quantized_multiplier* m, std::size_t count,
                                    std::int32_t zero) noexcept {
    if (count == 1) {  // one channel's constants in every lane
      int8_packed::lane_format<8, 0>::requantization<1> one;
      one.set(0, 0, m[0], zero);
      return {_mm256_set1_epi32(one.multiplier[0]), _mm256_set1_epi32(one.left[0]),
              _mm256_set1_epi32(one.right[0]),      _mm256_set1_epi32(one.right_less_one[0]),
              _mm256_set1_epi32(one.round_bit[0]),  _mm256_set1_epi32(zero)};
    }
    int8_packed::lane_format<8, 0>::requantization<8> constants;
    for (std::size_t l = 0; l < 8; ++l) constants.set(l, l, m[l], zero);
    return make_requantizer(constants, 0, zero);
  }
  /// y[c] = e(r, c, sums[c]) for c < n (`int8_epilogue`: the row's and columns' starts added, then each channel's
  /// requantization, as `output_requantizer`), 8 channels at a time, the rest one by one.
  template <typename Epilogue>
  static void requantize_row(const Epilogue& e, std::size_t r, const std::int32_t* sums, std::int8_t* y,
                             std::size_t n) noexcept {
    const __m256i row_start = Epilogue::row_starts ? _mm256_set1_epi32(e.row_start[r]) : _mm256_setzero_si256();
    // Rationale: the channels past the last 8 from n, not the vector loop's counter: with the counter, GCC 12 -O3
    // reported the tail loop, which runs no iteration when 8 divides n, as overflowing
    // (-Waggressive-loop-optimizations, in a user's build of int8 attention).
    const std::size_t whole = n - n % 8;
    if (whole > 0) {
      const requantizer one_for_all = requantizer_of(e.multipliers, 1, e.zero);
      for (std::size_t c = 0; c < whole; c += 8) {
        const __m256i start = _mm256_add_epi32(load_start(e.column_start + c), row_start);
        const __m256i sum = _mm256_add_epi32(load_start(sums + c), start);
        store_requantized(y + c, sum,
                          Epilogue::per_channel ? requantizer_of(e.multipliers + c, 8, e.zero) : one_for_all, 8);
      }
    }
    for (std::size_t c = whole; c < n; ++c) y[c] = e(r, c, sums[c]);
  }
};

/// The int8 operations of kernels/detail/int8_simd.hpp on 16 terms per step: `vpmovsxbw` widens 16 int8 to int16,
/// `vpsubw` subtracts the zero point (|a - z| <= 255 fits), `vpmaddwd` multiplies and adds pairs into 8 int32 lanes.
struct avx2_int8_ops : int8_ops_defaults {
  static constexpr bool has_totals = true;
  static constexpr bool has_requantize_row = true;
  static constexpr bool has_softmax_row = true;
  static constexpr std::size_t step = 16;
  /// Rows of b per pass (kernels/detail/int8_simd.hpp): 8, totalled at once by `totals`.
  static constexpr std::size_t rows_per_pass = 8;
  using offset = __m256i;
  using widened = __m256i;
  using accumulator = __m256i;
  static offset make_offset(std::int32_t zero_point) noexcept {
    return _mm256_set1_epi16(static_cast<short>(zero_point));
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    return _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), zero_point);
  }
  static accumulator zero() noexcept { return _mm256_setzero_si256(); }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return _mm256_add_epi32(sum, _mm256_madd_epi16(x, y));
  }
  static std::int32_t total(accumulator sum) noexcept {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
  }
  /// out[i] = the sum of sums[i]'s lanes for 8 accumulators at once: three levels of `vphaddd`, then the two
  /// 128-bit halves added (9 instructions for 8 sums, where `total` takes 6 for one).
  static void totals(const accumulator (&sums)[8], std::int32_t* out) noexcept {
    const __m256i q0 = _mm256_hadd_epi32(_mm256_hadd_epi32(sums[0], sums[1]), _mm256_hadd_epi32(sums[2], sums[3]));
    const __m256i q1 = _mm256_hadd_epi32(_mm256_hadd_epi32(sums[4], sums[5]), _mm256_hadd_epi32(sums[6], sums[7]));
    // q0's lanes: per half, the half's sums of rows 0-3; q1's the same of rows 4-7.
    const __m256i s =
        _mm256_add_epi32(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), s);
  }
  /// y[c] = e(r, c, sums[c]) for c < n (`int8_epilogue`): 8 outputs at a time as avx2_packed_requantization does
  /// them, the rest one by one.
  template <typename Epilogue>
  static void requantize_row(const Epilogue& e, std::size_t r, const std::int32_t* sums, std::int8_t* y,
                             std::size_t n) noexcept {
    avx2_packed_requantization::requantize_row(e, r, sums, y, n);
  }

  /// The largest of 32 signed bytes: the halves' maximum, then shifts by 8, 4, 2 and 1 bytes (the softmax's largest
  /// entry, here and on AVX-512).
  static std::int32_t largest_byte(__m256i bytes) noexcept {
    __m128i top = _mm_max_epi8(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 8));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 4));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 2));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 1));
    return static_cast<std::int8_t>(_mm_cvtsi128_si32(top));
  }

  /// Rows the vector softmax takes: a sum of at most 2047 exponentials of 2^20 or less stays below 2^31 (as Helium's
  /// and AVX-512's), from 16 entries on (shorter rows: the scalar form, as on AVX-512).
  static constexpr std::size_t softmax_row_limit = 2047;
  static constexpr std::size_t softmax_row_shortest = 16;
  /// Rows up to this long keep their exponentials on the stack (1 KiB) between the sum and the weights.
  static constexpr std::size_t kept_terms = 256;

  /// kernels/int8.hpp's `int8_softmax_row` on 8 lanes, as avx512_int8_ops::softmax_row computes it: the largest
  /// entry by `vpmaxsb`, the exponentials by `vpgatherdd`, the quotient guess (n r) >> 40 by `vpmuludq` on the even
  /// and the odd lanes, the remainder (`vpmulld`) against 2 sum for the last one (an unsigned comparison as
  /// `vpmaxud`); the last 8 or fewer entries of a row through a buffer, under a lane mask.
  static void softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                          const std::int32_t* table) noexcept {
    const std::int8_t* const xs = x + begin;
    std::int8_t* const ws = w + begin;
    const std::size_t n = end - begin;
    __m256i top = _mm256_set1_epi8(-128);
    std::size_t t = 0;
    for (; t + 32 <= n; t += 32) {
      top = _mm256_max_epi8(top, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs + t)));
    }
    std::int32_t most = largest_byte(top);
    for (; t < n; ++t) most = xs[t] > most ? xs[t] : most;
    const __m256i largest = _mm256_set1_epi32(most);
    const __m256i lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // The lanes of entries [u, u + 8) within the row (all ones), and those entries' exponentials (0 elsewhere).
    const auto lanes = [&](std::size_t u) {
      return n - u >= 8 ? _mm256_set1_epi32(-1)
                        : _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<std::int32_t>(n - u)), lane_index);
    };
    const auto terms = [&](std::size_t u, __m256i valid) {
      std::int64_t eight = 0;
      std::memcpy(&eight, xs + u, n - u >= 8 ? 8 : n - u);
      const __m256i offsets = _mm256_sub_epi32(largest, _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight)));
      return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), table, offsets, valid, 4);
    };
    __m256i sums = _mm256_setzero_si256();
    alignas(32) std::int32_t kept[kept_terms];
    for (std::size_t u = 0; u < n; u += 8) {
      const __m256i e = terms(u, lanes(u));
      if (n <= kept_terms) _mm256_store_si256(reinterpret_cast<__m256i*>(kept + u), e);
      sums = _mm256_add_epi32(sums, e);
    }
    const auto sum = static_cast<std::uint32_t>(total(sums));
    const std::uint32_t divisor = 2 * sum;
    const std::uint32_t reciprocal = math::reciprocal_guess(divisor);  // d in [2^21, 2^32)
    const __m256i divisors = _mm256_set1_epi32(static_cast<std::int32_t>(divisor));
    const __m256i reciprocals = _mm256_set1_epi32(static_cast<std::int32_t>(reciprocal));
    const __m256i all_terms = _mm256_set1_epi32(static_cast<std::int32_t>(sum));
    for (std::size_t u = 0; u < n; u += 8) {
      const __m256i valid = lanes(u);
      const __m256i e =
          n <= kept_terms ? _mm256_load_si256(reinterpret_cast<const __m256i*>(kept + u)) : terms(u, valid);
      const __m256i numerators = _mm256_add_epi32(_mm256_slli_epi32(e, 9), all_terms);
      const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(numerators, reciprocals), 40);
      // The odd lanes' products shifted by 8 only: the high half of each 64-bit lane is then the product >> 40.
      const __m256i odd = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(numerators, 32), reciprocals), 8);
      __m256i quotients = _mm256_blend_epi32(even, odd, 0xAA);
      const __m256i remainders = _mm256_sub_epi32(numerators, _mm256_mullo_epi32(quotients, divisors));
      const __m256i short_by_one = _mm256_cmpeq_epi32(_mm256_max_epu32(remainders, divisors), remainders);
      quotients = _mm256_sub_epi32(quotients, short_by_one);
      const __m256i v = _mm256_min_epi32(_mm256_sub_epi32(quotients, _mm256_set1_epi32(128)), _mm256_set1_epi32(127));
      const __m256i words = _mm256_packs_epi32(v, v);
      const __m256i bytes = _mm256_packs_epi16(words, words);
      const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
      alignas(8) std::int8_t eight[8];
      _mm_storel_epi64(reinterpret_cast<__m128i*>(eight), _mm256_castsi256_si128(ordered));
      std::memcpy(ws + u, eight, n - u >= 8 ? 8 : n - u);
    }
  }
};

/// kernels/detail/int8_packed.hpp's operations with AVX2 alone: groups of 2 inputs, staged as int16, and 2 weights
/// per channel (16 bytes a block), sign-extended as they are loaded (`vpmovsxbw`); `vpmaddwd` multiplies each lane's
/// 2 inputs by its channel's 2 weights and sums them in 32 bits, `vpaddd` adds that to the lane's sum. Every step is
/// exact: |2 x 128 x 128| fits 32 bits.
// Rationale: not `vpmaddubsw` (32 byte products per instruction where this does 16): it sums its two products in a
// saturating int16, which 2 x 255 x 128 overflows, so a layer's outputs would depend on its weights' pairs.
///
/// Example: `static_assert(ctattn::detail::avx2_packed_ops::format::group == 2);`
struct avx2_packed_ops : avx2_packed_requantization {
  static constexpr bool has_pack_block = true;
  using format = int8_packed::lane_format<8, 0, 2>;
  // 16 registers, and each `vpmaddwd` needs one of its own before its `vpaddd`: tiles of up to 3 rows with up to 9
  // accumulators (3 x 3; 2 x 4 where the blocks come in fours). 4 x 3 as with AVX-VNNI spilled 7 of the 12 sums to
  // the stack in every step (GCC 12).
  static constexpr std::size_t tile_rows = 3;
  static constexpr std::size_t accumulators = 9;

  /// The inputs x[0, k) as int16 at dst, then inputs 0 up to n bytes (n even).
  static void stage_row(std::int8_t* dst, const std::int8_t* x, std::size_t k, std::size_t n) noexcept {
    std::size_t t = 0;
    for (; t + 16 <= k; t += 16) {
      const __m256i words = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + t)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * t), words);
    }
    // Rationale: pointers, not 2 t: GCC 12 -O3 reports an index 2 t as overflowing at an iteration no call reaches
    // (-Waggressive-loop-optimizations, an error with -Werror).
    std::int8_t* out = dst + 2 * t;
    for (const std::int8_t* in = x + t; in != x + k; ++in, out += 2) {
      const auto word = static_cast<std::int16_t>(*in);
      std::memcpy(out, &word, 2);
    }
    for (; out != dst + n; ++out) *out = 0;
  }
  static accumulator load_weights(const std::int8_t* p) noexcept {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  /// 8 channels of an operand known only at run time (rows WS bytes apart, K int8 each) as one packed block
  /// (groups of 2 inputs, the last padded with 0; int8_packed::runtime_panel), and each channel's sum of its K values
  /// at its lane: per 16 inputs, the 8 rows transposed as 8 x 8 16-bit words (`vpunpck*wd`, `*dq`, `*qdq`: 24
  /// instructions), so that vector g holds every channel's group g; `vpmaddubsw` against ones then sums each group.
  // Rationale: the portable loop moves one channel's 2 bytes at a time (32 moves a channel at K = 64).
  template <std::size_t K, std::size_t WS>
  static void pack_block(std::int8_t* to, const std::int8_t* from, std::int32_t* sums) noexcept {
    constexpr std::size_t groups = (K + 1) / 2;
    const __m128i ones = _mm_set1_epi8(1);
    __m256i total = _mm256_setzero_si256();
    for (std::size_t t = 0; t < K; t += 16) {
      __m128i r[8];
      for (std::size_t l = 0; l < 8; ++l) {
        if (K - t >= 16) {
          r[l] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + l * WS + t));
        } else {
          alignas(16) std::int8_t part[16]{};
          std::memcpy(part, from + l * WS + t, K - t);
          r[l] = _mm_load_si128(reinterpret_cast<const __m128i*>(part));
        }
      }
      __m128i a[8];
      for (std::size_t i = 0; i < 8; i += 2) {
        a[i] = _mm_unpacklo_epi16(r[i], r[i + 1]);
        a[i + 1] = _mm_unpackhi_epi16(r[i], r[i + 1]);
      }
      // r[4h + 2i + j]: rows 4h..4h+3, words 4i + 2j and 4i + 2j + 1 (h, i, j in {0, 1}).
      for (std::size_t h = 0; h < 8; h += 4) {
        r[h] = _mm_unpacklo_epi32(a[h], a[h + 2]);
        r[h + 1] = _mm_unpackhi_epi32(a[h], a[h + 2]);
        r[h + 2] = _mm_unpacklo_epi32(a[h + 1], a[h + 3]);
        r[h + 3] = _mm_unpackhi_epi32(a[h + 1], a[h + 3]);
      }
      __m128i column[8];
      for (std::size_t q = 0; q < 4; ++q) {
        column[2 * q] = _mm_unpacklo_epi64(r[q], r[q + 4]);
        column[2 * q + 1] = _mm_unpackhi_epi64(r[q], r[q + 4]);
      }
      const std::size_t first = t / 2;
      const std::size_t count = groups - first < 8 ? groups - first : 8;
      for (std::size_t g = 0; g < count; ++g) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16 * (first + g)), column[g]);
        total = _mm256_add_epi32(total, _mm256_cvtepi16_epi32(_mm_maddubs_epi16(ones, column[g])));
      }
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums), total);
  }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t two;
    std::memcpy(&two, p, 4);
    return _mm256_set1_epi32(two);
  }
  // Rationale: in an asm statement for GCC, the sum as its in-out operand, as in avx512_vnni_packed_ops::dot_group:
  // through the intrinsics GCC 12 adds each product into a new register and copies it back (a move per step) and
  // spills sums the tile has registers for.
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    accumulator product;
    asm("vpmaddwd %3, %2, %1\n\tvpaddd %1, %0, %0" : "+x"(sum), "=&x"(product) : "x"(inputs), "x"(weights));
    return sum;
#else
    return _mm256_add_epi32(sum, _mm256_madd_epi16(inputs, weights));
#endif
  }
};

/// Int4 weights on AVX2 and AVX-512 (kernels/int4.hpp): unpacked 32 values a step, then the row's int8 product
/// kernel. Per 16 bytes: the low nibbles masked and the high ones shifted down and masked, each sign-extended as
/// (v ^ 8) - 8, then interleaved low first by `punpcklbw`/`punpckhbw`; the last values one at a time
/// (`kernels::int4_value`).
///
/// Example: `static_assert(ctattn::detail::avx2_int4_ops::has_unpack);` (on an AVX2 target)
struct avx2_int4_ops : int4_ops_defaults {
  static constexpr bool has_unpack = true;
  /// `count` int4 values (an even count) from `packed`, two a byte, low nibble first, into `values` as int8.
  static void unpack(const std::uint8_t* packed, std::int8_t* values, std::size_t count) noexcept {
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i eight = _mm_set1_epi8(8);
    const std::size_t bytes = count / 2;
    std::size_t i = 0;
    for (; i + 16 <= bytes; i += 16) {
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed + i));
      const __m128i low = _mm_sub_epi8(_mm_xor_si128(_mm_and_si128(b, nibble), eight), eight);
      const __m128i high = _mm_sub_epi8(_mm_xor_si128(_mm_and_si128(_mm_srli_epi16(b, 4), nibble), eight), eight);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(values + 2 * i), _mm_unpacklo_epi8(low, high));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(values + 2 * i + 16), _mm_unpackhi_epi8(low, high));
    }
    for (std::size_t v = 2 * i; v < count; ++v) values[v] = kernels::int4_value(packed, v);
  }
};

struct avx2_int16_ops;  // kernels/avx2_int16.hpp

/// The int8 table's avx2 row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx2> {
  static constexpr const char* name = "avx2";
  using ops = avx2_int8_ops;
  using product_ops = avx2_int8_ops;
  using packed_ops = avx2_packed_ops;
  using int4_ops = avx2_int4_ops;
  using int16_ops = avx2_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__)

#if defined(__AVX2__) && defined(__AVXVNNI__)

namespace ctattn::detail {

/// kernels/detail/int8_packed.hpp's operations with AVX-VNNI: as avx512_vnni_packed_ops (inputs + 128 as the
/// unsigned operand of `vpdpbusd`, their term folded into the starts) on 8 channels, requantized as
/// avx2_packed_ops.
///
/// Example: `static_assert(ctattn::detail::avx2_vnni_packed_ops::format::input_offset == 128);`
struct avx2_vnni_packed_ops : avx2_packed_requantization {
  using format = int8_packed::lane_format<8, 128>;

  /// dst[t] = x[t] + 128 as an unsigned byte for t < k, then 128 (an input 0) up to n.
  static void stage_row(std::int8_t* dst, const std::int8_t* x, std::size_t k, std::size_t n) noexcept {
    const __m256i flip = _mm256_set1_epi8(-128);
    std::size_t t = 0;
    for (; t + 32 <= k; t += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + t));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + t), _mm256_xor_si256(bytes, flip));
    }
    for (; t < k; ++t) dst[t] = static_cast<std::int8_t>(x[t] ^ -128);
    for (; t < n; ++t) dst[t] = -128;
  }
  static accumulator load_weights(const std::int8_t* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t four;
    std::memcpy(&four, p, 4);
    return _mm256_set1_epi32(four);
  }
  // Rationale: the instruction in an asm statement for GCC, as in avx512_vnni_packed_ops::dot_group.
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    asm("%{vex%} vpdpbusd %2, %1, %0" : "+x"(sum) : "x"(inputs), "x"(weights));
    return sum;
#else
    return _mm256_dpbusd_avx_epi32(sum, inputs, weights);
#endif
  }
};

/// The int8 table's avx2_vnni row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx2_vnni> {
  static constexpr const char* name = "avx2_vnni";
  using ops = avx2_int8_ops;
  using product_ops = avx2_int8_ops;
  using packed_ops = avx2_vnni_packed_ops;
  using int4_ops = avx2_int4_ops;
  using int16_ops = avx2_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__) && defined(__AVXVNNI__)

#endif  // CTATTN_KERNELS_AVX2_INT8_HPP
