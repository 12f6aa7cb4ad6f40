// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_AVX512_INT8_HPP
#define CTATTN_KERNELS_AVX512_INT8_HPP

/// \file
/// The AVX-512 int8 backends (x86-64 with AVX-512BW, and with AVX-512 VNNI): the int8 operations of
/// kernels/detail/int8_simd.hpp on 32 terms per step in zmm registers, and with VNNI the packed fully-connected
/// kernel of kernels/detail/int8_packed.hpp on 16 channels per register. kernels/int8.hpp includes it and chooses
/// its rows.
///
/// Example: `static_assert(ctattn::detail::avx512_int8_ops::step == 32);` (on an AVX-512BW target)

#include <cstddef>

#include "ctattn/kernels/avx2_int8.hpp"
#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/int8_packed.hpp"
#include "ctattn/kernels/detail/int8_simd.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

// The int8 operations need AVX-512BW (16-bit lanes in zmm registers): kernels/int8.hpp selects them then.
#if defined(__AVX512BW__)

#include <immintrin.h>

#include <cstdint>

namespace ctattn::detail {

/// The int8 operations of kernels/detail/int8_simd.hpp on 32 terms per step: `vpmovsxbw` widens 32 int8 to int16,
/// `vpsubw` subtracts the zero point, `vpmaddwd` multiplies and adds pairs into 16 int32 lanes (as avx2_int8_ops,
/// twice as wide).
struct avx512_int8_ops : int8_ops_defaults {
  static constexpr bool has_totals = true;
  static constexpr bool has_requantize_row = true;
  static constexpr bool has_softmax_row = true;
  static constexpr std::size_t step = 32;
  using tail_ops = avx2_int8_ops;  // up to 31 terms past the last whole step: 16 of them in one AVX2 step
  using offset = __m512i;
  using widened = __m512i;
  using accumulator = __m512i;
  static offset make_offset(std::int32_t zero_point) noexcept {
    return _mm512_set1_epi16(static_cast<short>(zero_point));
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    return _mm512_sub_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), zero_point);
  }
  static accumulator zero() noexcept { return _mm512_setzero_si512(); }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return _mm512_add_epi32(sum, _mm512_madd_epi16(x, y));
  }
  // The two halves added, then avx2_int8_ops's reduction. Rationale: the masked extract, as in avx512_ops, because
  // GCC 12 warns that the unmasked one's undefined source may be used uninitialized.
  static std::int32_t total(accumulator sum) noexcept { return avx2_int8_ops::total(halves(sum)); }
  /// Rows of b per pass (kernels/detail/int8_simd.hpp): 8, totalled at once by `totals`.
  static constexpr std::size_t rows_per_pass = 8;
  /// out[i] = the sum of sums[i]'s lanes for 8 accumulators: each one's halves added, then avx2_int8_ops's `totals`.
  static void totals(const accumulator (&sums)[8], std::int32_t* out) noexcept {
    const __m256i half[8] = {halves(sums[0]), halves(sums[1]), halves(sums[2]), halves(sums[3]),
                             halves(sums[4]), halves(sums[5]), halves(sums[6]), halves(sums[7])};
    avx2_int8_ops::totals(half, out);
  }
  /// As avx2_int8_ops::requantize_row: 8 outputs at a time in ymm registers.
  template <typename Epilogue>
  static void requantize_row(const Epilogue& e, std::size_t r, const std::int32_t* sums, std::int8_t* y,
                             std::size_t n) noexcept {
    avx2_packed_requantization::requantize_row(e, r, sums, y, n);
  }

  /// Rows the vector softmax takes: a sum of at most 2047 exponentials of 2^20 or less stays below 2^31, so that the
  /// numerators 512 e + sum and the divisor 2 sum fit 32-bit lanes (as Helium's).
  static constexpr std::size_t softmax_row_limit = 2047;
  /// ... and from this many on: a whole vector of 16 lanes.
  // Rationale: shorter rows go faster through the scalar form, which the compiler unrolls (the int8 sorter's rows of
  // 6: 10.6 us that way, 11.9 us through the gathers and masks; rows of 16 the other way round, int8 attention at
  // (16, 64) 1.77 us here and 2.20 us there; Zen 4).
  static constexpr std::size_t softmax_row_shortest = 16;
  /// Rows up to this long keep their exponentials on the stack (1 KiB) between the sum and the weights, rather than
  /// gather them twice.
  static constexpr std::size_t kept_terms = 256;

  /// kernels/int8.hpp's `int8_softmax_row` for a row of `softmax_row_shortest` to `softmax_row_limit` entries, all
  /// visible: the same weights, 16 lanes at a time. The largest entry by `vpmaxsb` on 64 entries at a time, the
  /// exponentials from the table (by `vpermt2d` in rows of 32 or more, else `vpgatherdd`), each weight's quotient
  /// round(256 e / sum) as (n r) >> 40 with r = `math::reciprocal_guess(2 sum)`, n = 512 e + sum (`vpmuludq` on the
  /// even and the odd lanes: n r < 2^52), then the remainder n - q 2 sum (`vpmulld`, below 2^32) against 2 sum adds
  /// the last one, as the scalar form's comparison does. Tails by masks.
  // Rationale: GCC 12 vectorized the scalar form with 64-bit lanes (the sum and the quotients in int64, `vpmullq`)
  // and gathered each exponential twice; with this form int8 attention took 1.77 us at (16, 64) (2.01 before),
  // 10.5 us at (64, 64) (10.9) and 50.2 us at (128, 128) (53.7), Zen 4. What is left of a row's time is mostly the
  // latency of its chain (largest, gathers, sum, division, weights).
  // Rationale: GCC 12 at -O3, inlining this into an attention whose rows hold 7 keys, reports the 64-byte loads of
  // the rows of 32 or more as outside the row (-Warray-bounds), though `backend_softmax_row` never calls it for
  // rows shorter than `softmax_row_shortest`; the warning is off for this function.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
  static void softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                          const std::int32_t* table) noexcept {
    if (end - begin >= 32) {
      softmax_row_by<true>(x, w, begin, end, table);
    } else {
      softmax_row_by<false>(x, w, begin, end, table);
    }
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

 private:
  // softmax_row's body, the exponentials by permutes (Permute) or gathers.
  template <bool Permute>
  static void softmax_row_by(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                             const std::int32_t* table) noexcept {
    const std::int8_t* const xs = x + begin;
    std::int8_t* const ws = w + begin;
    const std::size_t n = end - begin;
    const auto first = [](std::size_t count) { return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1u; };
    __m512i top = _mm512_set1_epi8(-128);
    std::size_t t = 0;
    for (; t + 64 <= n; t += 64) top = _mm512_max_epi8(top, _mm512_loadu_si512(xs + t));
    if (t < n) {
      const __mmask64 rest = first(n - t);
      top = _mm512_mask_max_epi8(top, rest, top, _mm512_maskz_loadu_epi8(rest, xs + t));
    }
    const __m512i largest = _mm512_set1_epi32(avx2_int8_ops::largest_byte(
        _mm256_max_epi8(_mm512_maskz_extracti64x4_epi64(0xF, top, 0), _mm512_maskz_extracti64x4_epi64(0xF, top, 1))));
    // The exponentials of entries [u, u + 16) under mask k (0 in the other lanes). Rows of 32 entries or more
    // (Permute): the table's 256 entries in 16 registers, an entry found by `vpermt2d` in each pair of them (the
    // offset's low 5 bits), then chosen among the 8 pairs by its bits 5, 6 and 7. Shorter rows gather.
    // Rationale: on Zen 4 a `vpgatherdd` of 16 entries took about 24 cycles, the 18 instructions of the permutes
    // about 9; loading the 16 registers costs more than it saves in a row of 16 (int8 attention at (16, 64): 1.51 us
    // gathering, 1.67 us permuting; at (64, 64) 9.89 and 9.28 us, at (128, 128) 50.0 and 44.6 us).
    [[maybe_unused]] __m512i entries[16];
    if constexpr (Permute) {
      for (std::size_t i = 0; i < 16; ++i) entries[i] = _mm512_loadu_si512(table + 16 * i);
    }
    const auto terms = [&](std::size_t u, __mmask16 k) {
      const __m128i bytes = _mm512_maskz_extracti32x4_epi32(0xF, _mm512_maskz_loadu_epi8(k, xs + u), 0);
      const __m512i offsets = _mm512_sub_epi32(largest, _mm512_maskz_cvtepi8_epi32(0xFFFF, bytes));
      if constexpr (!Permute) {
        return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), k, offsets, table, 4);
      } else {
        __m512i pair[8];
        for (std::size_t b = 0; b < 8; ++b) {
          pair[b] = _mm512_permutex2var_epi32(entries[2 * b], offsets, entries[2 * b + 1]);
        }
        const __mmask16 bit5 = _mm512_test_epi32_mask(offsets, _mm512_set1_epi32(32));
        const __mmask16 bit6 = _mm512_test_epi32_mask(offsets, _mm512_set1_epi32(64));
        const __mmask16 bit7 = _mm512_test_epi32_mask(offsets, _mm512_set1_epi32(128));
        for (std::size_t b = 0; b < 8; b += 2) pair[b] = _mm512_mask_blend_epi32(bit5, pair[b], pair[b + 1]);
        pair[0] = _mm512_mask_blend_epi32(bit6, pair[0], pair[2]);
        pair[4] = _mm512_mask_blend_epi32(bit6, pair[4], pair[6]);
        return _mm512_maskz_mov_epi32(k, _mm512_mask_blend_epi32(bit7, pair[0], pair[4]));
      }
    };
    const auto lanes = [n](std::size_t u) {
      return n - u >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - u)) - 1u);
    };
    __m512i sums = _mm512_setzero_si512();
    alignas(64) std::int32_t kept[kept_terms];
    for (std::size_t u = 0; u < n; u += 16) {
      const __m512i e = terms(u, lanes(u));
      if (n <= kept_terms) _mm512_store_si512(kept + u, e);
      sums = _mm512_add_epi32(sums, e);
    }
    const __m256i sums256 =
        _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, sums, 0), _mm512_maskz_extracti64x4_epi64(0xF, sums, 1));
    const auto sum = static_cast<std::uint32_t>(avx2_int8_ops::total(sums256));
    const std::uint32_t divisor = 2 * sum;
    const std::uint32_t reciprocal = math::reciprocal_guess(divisor);  // d in [2^21, 2^32)
    const __m512i divisors = _mm512_set1_epi32(static_cast<std::int32_t>(divisor));
    const __m512i reciprocals = _mm512_set1_epi32(static_cast<std::int32_t>(reciprocal));
    const __m512i total = _mm512_set1_epi32(static_cast<std::int32_t>(sum));
    constexpr __mmask16 all = 0xFFFF;
    for (std::size_t u = 0; u < n; u += 16) {
      const __mmask16 k = lanes(u);
      const __m512i e = n <= kept_terms ? _mm512_load_si512(kept + u) : terms(u, k);
      const __m512i numerators = _mm512_add_epi32(_mm512_maskz_slli_epi32(all, e, 9), total);
      const __m512i even = _mm512_maskz_srli_epi64(0xFF, _mm512_maskz_mul_epu32(0xFF, numerators, reciprocals), 40);
      // The odd lanes' products shifted by 8 only: the high half of each 64-bit lane is then the product >> 40.
      const __m512i odd = _mm512_maskz_srli_epi64(
          0xFF, _mm512_maskz_mul_epu32(0xFF, _mm512_maskz_srli_epi64(0xFF, numerators, 32), reciprocals), 8);
      __m512i quotients = _mm512_mask_blend_epi32(0xAAAA, even, odd);
      const __m512i remainders = _mm512_sub_epi32(numerators, _mm512_mullo_epi32(quotients, divisors));
      quotients = _mm512_mask_add_epi32(quotients, _mm512_cmpge_epu32_mask(remainders, divisors), quotients,
                                        _mm512_set1_epi32(1));
      const __m512i weights =
          _mm512_maskz_min_epi32(all, _mm512_sub_epi32(quotients, _mm512_set1_epi32(128)), _mm512_set1_epi32(127));
      _mm512_mask_storeu_epi8(ws + u, k, _mm512_zextsi128_si512(_mm512_maskz_cvtepi32_epi8(all, weights)));
    }
  }

  static __m256i halves(accumulator sum) noexcept {
    return _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, sum, 0), _mm512_maskz_extracti64x4_epi64(0xF, sum, 1));
  }
};

struct avx512_int16_ops;  // kernels/avx512_int16.hpp

// An AVX-512 target without VNNI packs its weights for AVX2's `vpmaddwd` kernel (kernels/avx2_int8.hpp): ctattn has no
// zmm form of it.
/// The int8 table's avx512 row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx512> {
  static constexpr const char* name = "avx512";
  using ops = avx512_int8_ops;
  using product_ops = avx512_int8_ops;
  using packed_ops = avx2_packed_ops;
  using int4_ops = avx2_int4_ops;
  using int16_ops = avx512_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX512BW__)

// The packed int8 fully-connected kernel needs AVX-512 VNNI (`vpdpbusd`) besides AVX-512BW: kernels/int8.hpp
// selects it then.
#if defined(__AVX512BW__) && defined(__AVX512VNNI__)

#include <cstring>

namespace ctattn::detail {

/// The operations of kernels/detail/int8_packed.hpp on 16 channels per zmm register: `vpdpbusd` adds to each
/// channel's int32 lane the 4 products of 4 inputs broadcast to every lane (unsigned: x + 128, staged) with its 4
/// packed weights, 64 multiply-accumulates per instruction; the requantization is `output_requantizer`'s in
/// `paired_format`'s one step, on the 8 channels of the even lanes and then the 8 of the odd ones (`vpmuldq` for
/// the 64-bit products, one variable shift per channel, `vpmovsqb` to saturate 8 channels in order).
struct avx512_vnni_packed_ops : int8_packed_ops_defaults {
  static constexpr bool has_pack_block = true;
  using format = int8_packed::paired_format;
  // Tiles of up to 8 rows with up to 24 accumulators in all (one row: 8 blocks, 128 channels), out of 32 registers.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t accumulators = 24;
  static constexpr std::size_t max_panel = 8;

  using accumulator = __m512i;
  /// 8 channels' constants, one per 64-bit lane.
  struct half {
    __m512i multiplier, addend, negative, shift;
  };
  struct requantizer {
    __m512i left;
    half even, odd;
  };

  /// dst[t] = x[t] + 128 as an unsigned byte for t < k, then 128 (an input 0) up to n.
  static void stage_row(std::int8_t* dst, const std::int8_t* x, std::size_t k, std::size_t n) noexcept {
    const __m512i flip = _mm512_set1_epi8(-128);
    const auto first = [](std::size_t count) { return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1u; };
    std::size_t t = 0;
    for (; t + 64 <= k; t += 64) _mm512_storeu_si512(dst + t, _mm512_xor_si512(_mm512_loadu_si512(x + t), flip));
    // Rationale: masked forms for the rest only (a masked store takes several cycles on Zen 4).
    for (; t < n; t += 64) {
      const __mmask64 read = t < k ? first(k - t) : __mmask64{0};
      _mm512_mask_storeu_epi8(dst + t, first(n - t), _mm512_xor_si512(_mm512_maskz_loadu_epi8(read, x + t), flip));
    }
  }
  static accumulator load_start(const std::int32_t* p) noexcept { return _mm512_loadu_si512(p); }
  static accumulator add_row_start(accumulator start, std::int32_t row) noexcept {
    return _mm512_add_epi32(start, _mm512_set1_epi32(row));
  }
  static accumulator load_weights(const std::int8_t* p) noexcept { return _mm512_loadu_si512(p); }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t four;
    std::memcpy(&four, p, 4);
    return _mm512_set1_epi32(four);
  }
  // Rationale: the instruction in an asm statement with the sum as its in-out operand: through the intrinsic, GCC 12
  // copies every accumulator to a new register after each vpdpbusd (as many moves as multiply-adds).
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    asm("vpdpbusd %2, %1, %0" : "+v"(sum) : "v"(inputs), "v"(weights));
    return sum;
#else
    return _mm512_dpbusd_epi32(sum, inputs, weights);
#endif
  }
  /// 16 channels of an operand known only at run time (rows WS bytes apart, K int8 each) as one packed block
  /// (`paired_format`'s lanes, groups of 4 inputs, the last padded with 0; int8_packed::runtime_panel), and each
  /// channel's sum of its K values at its lane: per 64 inputs, the 16 rows loaded in their lanes' order (channels
  /// 0-7 to the even lanes, 8-15 to the odd) and transposed as 16 x 16 words (`vpunpck*dq`, `vpunpck*qdq`,
  /// `vshufi32x4` twice: 64 instructions), so that vector g holds every channel's group g; a `vpdpbusd` of each
  /// against ones sums the channels.
  // Rationale: not a `vpgatherdd` per group: on Zen 4 a gather of 16 words took about 24 cycles, and packing spent
  // 7% of int8 attention's time at (64, 64); the transposition does 16 groups in about as many cycles as one gather.
  template <std::size_t K, std::size_t WS>
  static void pack_block(std::int8_t* to, const std::int8_t* from, std::int32_t* sums) noexcept {
    constexpr std::size_t groups = (K + 3) / 4;
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i total = _mm512_setzero_si512();
    for (std::size_t t = 0; t < K; t += 64) {
      const __mmask64 read = K - t >= 64 ? ~__mmask64{0} : (__mmask64{1} << (K - t)) - 1u;
      __m512i r[16];
      for (std::size_t l = 0; l < 16; ++l) {
        const std::size_t channel = l % 2 == 0 ? l / 2 : 8 + l / 2;
        r[l] = _mm512_maskz_loadu_epi8(read, from + channel * WS + t);
      }
      __m512i u[16];
      for (std::size_t i = 0; i < 16; i += 2) {
        u[i] = _mm512_maskz_unpacklo_epi32(0xFFFF, r[i], r[i + 1]);
        u[i + 1] = _mm512_maskz_unpackhi_epi32(0xFFFF, r[i], r[i + 1]);
      }
      for (std::size_t i = 0; i < 16; i += 4) {  // u[4i + j]: rows 4i..4i+3, columns j + 4k in 128-bit lane k
        r[i] = _mm512_maskz_unpacklo_epi64(0xFF, u[i], u[i + 2]);
        r[i + 1] = _mm512_maskz_unpackhi_epi64(0xFF, u[i], u[i + 2]);
        r[i + 2] = _mm512_maskz_unpacklo_epi64(0xFF, u[i + 1], u[i + 3]);
        r[i + 3] = _mm512_maskz_unpackhi_epi64(0xFF, u[i + 1], u[i + 3]);
      }
      __m512i column[16];
      for (std::size_t j = 0; j < 4; ++j) {
        const __m512i v0 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[j], r[4 + j], 0x88);
        const __m512i v1 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[j], r[4 + j], 0xDD);
        const __m512i v2 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[8 + j], r[12 + j], 0x88);
        const __m512i v3 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[8 + j], r[12 + j], 0xDD);
        column[j] = _mm512_maskz_shuffle_i32x4(0xFFFF, v0, v2, 0x88);
        column[j + 8] = _mm512_maskz_shuffle_i32x4(0xFFFF, v0, v2, 0xDD);
        column[j + 4] = _mm512_maskz_shuffle_i32x4(0xFFFF, v1, v3, 0x88);
        column[j + 12] = _mm512_maskz_shuffle_i32x4(0xFFFF, v1, v3, 0xDD);
      }
      const std::size_t first = t / 4;
      const std::size_t count = groups - first < 16 ? groups - first : 16;
      for (std::size_t g = 0; g < count; ++g) {
        _mm512_storeu_si512(to + 64 * (first + g), column[g]);
        total = dot_group(total, ones, column[g]);
      }
    }
    _mm512_storeu_si512(sums, total);
  }
  /// The constants of the block from channel c (a multiple of 16); the zero point is in the addends.
  template <typename R>
  static requantizer make_requantizer(const R& r, std::size_t c, std::int32_t) noexcept {
    const auto load_half = [&r](std::size_t from) {
      return half{_mm512_loadu_si512(r.multiplier + 2 * from), _mm512_loadu_si512(r.addend + 2 * from),
                  _mm512_loadu_si512(r.negative + 2 * from), _mm512_loadu_si512(r.shift + 2 * from)};
    };
    return {_mm512_loadu_si512(r.left + c), load_half(c), load_half(c + 8)};
  }
  /// The first `valid` of 8 channels requantized to y, from the low words of x's 64-bit lanes: `output_requantizer`'s
  /// arithmetic in paired_format's one step.
  // Rationale: the zero-masking forms with every lane selected, as in avx512_ops (GCC 12's plain forms start from a
  // self-initialized register that -Wuninitialized reports).
  static void store_half(std::int8_t* y, __m512i x, const half& h, std::size_t valid) noexcept {
    constexpr __mmask8 all = 0xFF;
    const __m512i product = _mm512_maskz_mul_epi32(all, x, h.multiplier);
    const __mmask8 negative = _mm512_cmplt_epi64_mask(product, _mm512_set1_epi64(-(std::int64_t{1} << 30)));
    const __m512i biased = _mm512_maskz_add_epi64(all, product, h.addend);
    const __m512i sum = _mm512_mask_sub_epi64(biased, negative, biased, h.negative);
    const __m512i v = _mm512_maskz_srav_epi64(all, sum, h.shift);
    // Rationale: saturated in a register, then stored whole or through a buffer: GCC 12's dead-store pass fails
    // with an internal compiler error on the masked form (`vpmovsqb` to memory under a mask) in some inlinings.
    const __m128i bytes = _mm512_maskz_cvtsepi64_epi8(all, v);
    if (valid == 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(y), bytes);
    } else {
      std::int8_t eight[16];
      _mm_storeu_si128(reinterpret_cast<__m128i*>(eight), bytes);
      // Rationale: the bound held below 8 for the compiler too; GCC 12 at -O3 kept the odd half's call of a block
      // of 5 valid channels alive in some inlinings and warned of a memcpy of valid - 8 (-Wstringop-overflow).
      std::memcpy(y, eight, valid < 8 ? valid : 8);
    }
  }
  /// The first `valid` channels of the block requantized to y: channels 0-7 from the even lanes, 8-15 from the odd.
  static void store_requantized(std::int8_t* y, accumulator sum, const requantizer& r, std::size_t valid) noexcept {
    const __m512i x = _mm512_maskz_sllv_epi32(0xFFFF, sum, r.left);
    store_half(y, x, r.even, valid < 8 ? valid : 8);
    if (valid > 8) store_half(y + 8, _mm512_maskz_srli_epi64(0xFF, x, 32), r.odd, valid - 8);
  }
};

/// The int8 operations of kernels/detail/int8_simd.hpp with AVX-512 VNNI: avx512_int8_ops's, but for a `dot_rows` of
/// its own on 64 terms per step that widens nothing. a + 128 is `vpdpbusd`'s unsigned operand (one `vpxord` per step,
/// shared by a pass of 8 rows of b), b is read as it is, and a second `vpdpbusd` against ones sums b, whose 128 sum b
/// is taken away: sum (a + 128) b - 128 sum b = sum a b. The zero points' terms follow, as in the dot-product form of
/// NEON: sum (a - za)(b - zb) = sum a b - zb sum a - za sum b + n za zb. Terms past the last whole step go to
/// avx512_int8_ops's 32-term steps, then AVX2's, then the loop.
// Rationale: per 64 terms and row of b, 2 instructions (the load folded into the first) where the widening form
// takes 8 (two 32-term steps of a widening load, a subtraction, `vpmaddwd` and an add).
struct avx512_vnni_int8_ops : avx512_int8_ops {
  static constexpr bool has_dot_rows = true;
  static constexpr std::size_t step = 64;

  /// out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero) for j < n, t < k.
  static void dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                       std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
    const std::size_t whole = k - k % step;
    if (whole > 0) {
      std::int32_t a_sum = 0;  // at most 128 x 33,025 in magnitude
      for (std::size_t t = 0; t < whole; ++t) a_sum += a[t];
      const zero_terms z{a_zero, b_zero, a_sum, whole};
      // Rationale: the rows by pointers that advance, not b + j b_stride: GCC 12 -O2 reports the latter as overflowing
      // at an iteration no call reaches (-Waggressive-loop-optimizations, an error with -Werror).
      const std::int8_t* row = b;
      std::int32_t* sum = out;
      const std::int32_t* const end = out + n;
      for (; end - sum >= 8; sum += 8, row += 8 * b_stride) pass<8>(a, row, b_stride, whole, z, sum);
      for (; sum != end; ++sum, row += b_stride) pass<1>(a, row, b_stride, whole, z, sum);
    } else {
      for (std::size_t j = 0; j < n; ++j) out[j] = 0;
    }
    if (whole < k) {
      int8_simd::tiled_dot_rows<avx512_int8_ops, true>(a + whole, a_zero, b + whole, b_stride, b_zero, k - whole, n,
                                                       out);
    }
  }

 private:
  struct zero_terms {
    std::int32_t a_zero, b_zero;
    std::int32_t a_sum;  // sum a over the whole steps
    std::size_t terms;
  };

  // out[r] for the R rows of b from `first`, over the whole steps.
  template <std::size_t R>
  static void pass(const std::int8_t* a, const std::int8_t* first, std::size_t b_stride, std::size_t whole,
                   const zero_terms& z, std::int32_t* out) noexcept {
    __m512i dots[R];
    __m512i b_sums[R];
    for (std::size_t r = 0; r < R; ++r) dots[r] = b_sums[r] = _mm512_setzero_si512();
    const __m512i flip = _mm512_set1_epi8(-128);
    const __m512i ones = _mm512_set1_epi8(1);
    for (std::size_t t = 0; t < whole; t += step) {
      const __m512i unsigned_a = _mm512_xor_si512(_mm512_loadu_si512(a + t), flip);
      for (std::size_t r = 0; r < R; ++r) {
        const __m512i row = _mm512_loadu_si512(first + r * b_stride + t);
        dots[r] = avx512_vnni_packed_ops::dot_group(dots[r], unsigned_a, row);
        b_sums[r] = avx512_vnni_packed_ops::dot_group(b_sums[r], ones, row);
      }
    }
    // Rationale: the masked shift, as the masked extracts elsewhere: GCC 12 warns that the unmasked one's undefined
    // source may be used uninitialized.
    for (std::size_t r = 0; r < R; ++r) {
      dots[r] = _mm512_sub_epi32(dots[r], _mm512_maskz_slli_epi32(0xFFFF, b_sums[r], 7));
    }
    std::int32_t products[R];
    std::int32_t row_sums[R];
    if constexpr (R == 8) {
      totals(dots, products);
      totals(b_sums, row_sums);
    } else {
      for (std::size_t r = 0; r < R; ++r) {
        products[r] = total(dots[r]);
        row_sums[r] = total(b_sums[r]);
      }
    }
    for (std::size_t r = 0; r < R; ++r) {
      out[r] = int8_simd::offset_dot(products[r], z.a_sum, row_sums[r], z.a_zero, z.b_zero, z.terms);
    }
  }
};

/// The int8 table's avx512_vnni row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx512_vnni> {
  static constexpr const char* name = "avx512_vnni";
  using ops = avx512_vnni_int8_ops;
  using product_ops = avx512_vnni_int8_ops;
  using packed_ops = avx512_vnni_packed_ops;
  using int4_ops = avx2_int4_ops;
  using int16_ops = avx512_int16_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX512BW__) && defined(__AVX512VNNI__)

#endif  // CTATTN_KERNELS_AVX512_INT8_HPP
