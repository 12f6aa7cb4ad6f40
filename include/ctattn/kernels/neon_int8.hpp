// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_NEON_INT8_HPP
#define CTATTN_KERNELS_NEON_INT8_HPP

/// \file
/// The AArch64 int8 backends: the int8 operations of kernels/detail/int8_simd.hpp with NEON's widening
/// multiply-adds (8 terms per step), the dot-product kernel with `sdot` (Armv8.2-A DotProd, 16 terms per
/// instruction), and the packed fully-connected kernels of kernels/detail/int8_packed.hpp with `sdot` and with
/// `smmla` (Armv8.6-A I8MM). kernels/int8.hpp includes it and chooses its rows.
///
/// Example: `static_assert(ctattn::detail::neon_int8_ops::step == 8);` (on AArch64)

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/int4_packing.hpp"
#include "ctattn/kernels/detail/int8_packed.hpp"
#include "ctattn/kernels/detail/int8_simd.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

// Empty unless the target is AArch64 with NEON.
#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

namespace ctattn::detail {

/// The int8 operations of kernels/detail/int8_simd.hpp on 8 terms per step: `ssubl` widens 8 int8 to int16 less
/// the zero point (an int8 itself), `smlal` and `smlal2` multiply and add the low and high halves into 4 int32 lanes.
struct neon_int8_ops : int8_ops_defaults {
  static constexpr std::size_t step = 8;
  using offset = int8x8_t;
  using widened = int16x8_t;
  using accumulator = int32x4_t;
  static offset make_offset(std::int32_t zero_point) noexcept {
    return vdup_n_s8(static_cast<std::int8_t>(zero_point));
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept { return vsubl_s8(vld1_s8(p), zero_point); }
  static accumulator zero() noexcept { return vdupq_n_s32(0); }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return vmlal_high_s16(vmlal_s16(sum, vget_low_s16(x), vget_low_s16(y)), x, y);
  }
  static std::int32_t total(accumulator sum) noexcept { return vaddvq_s32(sum); }
};

/// Int4 weights on NEON (kernels/int4.hpp): unpacked 32 values a step, then the row's int8 product kernel. Per 16
/// bytes, `shl` and `sshr` sign-extend the low nibbles, `sshr` the high ones, and `st2` interleaves them; the last
/// values one at a time (`kernels::int4_value`).
///
/// Example: `static_assert(ctattn::detail::neon_int4_ops::has_unpack);` (on an AArch64 target)
struct neon_int4_ops : int4_ops_defaults {
  static constexpr bool has_unpack = true;
  /// `count` int4 values (an even count) from `packed`, two a byte, low nibble first, into `values` as int8.
  static void unpack(const std::uint8_t* packed, std::int8_t* values, std::size_t count) noexcept {
    const std::size_t bytes = count / 2;
    std::size_t i = 0;
    for (; i + 16 <= bytes; i += 16) {
      const int8x16_t b = vreinterpretq_s8_u8(vld1q_u8(packed + i));
      int8x16x2_t pair;
      pair.val[0] = vshrq_n_s8(vshlq_n_s8(b, 4), 4);
      pair.val[1] = vshrq_n_s8(b, 4);
      vst2q_s8(values + 2 * i, pair);
    }
    for (std::size_t v = 2 * i; v < count; ++v) values[v] = kernels::int4_value(packed, v);
  }
};

struct neon_int16_ops;  // kernels/neon_int16.hpp

/// The int8 table's neon row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::neon> {
  static constexpr const char* name = "neon";
  using ops = neon_int8_ops;
  using product_ops = neon_int8_ops;
  using packed_ops = void;
  using int4_ops = neon_int4_ops;
  using int16_ops = neon_int16_ops;
};

#if defined(__ARM_FEATURE_DOTPROD)
/// The int8 kernel with the dot-product instructions (Armv8.2-A's optional DotProd, `-march=armv8.2-a+dotprod`):
/// `sdot` adds the products of four int8 pairs into each 32-bit lane, 16 terms per instruction, on the raw int8
/// values. The zero points come in afterwards, exactly:
///   sum (a - za)(b - zb) = sum a b - zb sum a - za sum b + k za zb,
/// where sum a and sum b are `sdot`s against a vector of ones. Four rows of b per pass share each load of a (a last
/// pass of fewer rows computes its first row again in the unused places and keeps only its own). Every
/// partial sum stays within int32 (|sum a b| <= 2^14 k and k <= 33,025), and the four terms are combined modulo 2^32
/// (`int8_simd::offset_dot`).
/// It replaces kernels/detail/int8_simd.hpp's tiling (`dot_rows` is the whole kernel).
struct neon_dotprod_int8_ops : int8_ops_defaults {
  static constexpr bool has_dot_rows = true;
  static constexpr std::size_t step = 16;

  static void dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                       std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
    constexpr std::size_t pass = 4;
    const std::size_t whole = k - k % step;
    const int8x16_t ones = vdupq_n_s8(1);
    int32x4_t a_lanes = vdupq_n_s32(0);
    for (std::size_t t = 0; t < whole; t += step) a_lanes = vdotq_s32(a_lanes, vld1q_s8(a + t), ones);
    const std::int32_t sum_a = vaddvq_s32(a_lanes);
    // sum over the whole steps, less the zero points, plus the rest of the terms as the scalar loop adds them.
    const auto finish = [&](const std::int8_t* row, int32x4_t products, int32x4_t row_lanes) noexcept {
      return static_cast<std::int32_t>(
          static_cast<std::uint32_t>(
              int8_simd::offset_dot(vaddvq_s32(products), sum_a, vaddvq_s32(row_lanes), a_zero, b_zero, whole)) +
          static_cast<std::uint32_t>(int8_simd::rest_of_row(a, a_zero, row, b_zero, whole, k)));
    };
    for (std::size_t j = 0; j < n; j += pass) {
      const std::size_t count = n - j < pass ? n - j : pass;  // the last pass may hold fewer rows
      const std::int8_t* rows[pass]{};
      int32x4_t products[pass];
      int32x4_t row_lanes[pass];
      for (std::size_t r = 0; r < pass; ++r) {
        rows[r] = b + (j + (r < count ? r : 0)) * b_stride;
        products[r] = vdupq_n_s32(0);
        row_lanes[r] = vdupq_n_s32(0);
      }
      for (std::size_t t = 0; t < whole; t += step) {
        const int8x16_t x = vld1q_s8(a + t);
        for (std::size_t r = 0; r < pass; ++r) {
          const int8x16_t y = vld1q_s8(rows[r] + t);
          products[r] = vdotq_s32(products[r], x, y);
          row_lanes[r] = vdotq_s32(row_lanes[r], y, ones);
        }
      }
      for (std::size_t r = 0; r < count; ++r) out[j + r] = finish(rows[r], products[r], row_lanes[r]);
    }
  }
};

/// The operations of kernels/detail/int8_packed.hpp on 4 channels per q register: `sdot` adds to each channel's
/// int32 lane the 4 products of 4 inputs broadcast to every lane with its 4 packed weights (signed by signed, so both
/// are read as they are: no offset; rows are staged only where K is not a multiple of 4); the requantization is
/// `output_requantizer`'s on 4 channels at once (`sqrdmulh` is TFLite's doubling high multiply; the right shift
/// rounds ties away from zero by the sign fix-up before `srshl`).
struct neon_dotprod_packed_ops : int8_packed_ops_defaults {
  using format = int8_packed::lane_format<4, 0>;
  // 32 registers: tiles of up to 8 rows with up to 24 accumulators (one row: 8 blocks, 32 channels).
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t accumulators = 24;
  static constexpr std::size_t max_panel = 8;

  using accumulator = int32x4_t;
  struct requantizer {
    int32x4_t multiplier, left, right, zero;
  };

  static accumulator load_start(const std::int32_t* p) noexcept { return vld1q_s32(p); }
  static accumulator add_row_start(accumulator start, std::int32_t row) noexcept {
    return vaddq_s32(start, vdupq_n_s32(row));
  }
  static accumulator load_weights(const std::int8_t* p) noexcept { return vreinterpretq_s32_s8(vld1q_s8(p)); }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t four;
    std::memcpy(&four, p, 4);
    return vdupq_n_s32(four);
  }
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
    return vdotq_s32(sum, vreinterpretq_s8_s32(inputs), vreinterpretq_s8_s32(weights));
  }
  /// The constants of the block from channel c (a multiple of 4).
  template <typename R>
  static requantizer make_requantizer(const R& r, std::size_t c, std::int32_t zero) noexcept {
    return {vld1q_s32(r.multiplier + c), vld1q_s32(r.left + c), vnegq_s32(vld1q_s32(r.right + c)), vdupq_n_s32(zero)};
  }
  /// The first `valid` lanes of sum requantized to y.
  static void store_requantized(std::int8_t* y, accumulator sum, const requantizer& r, std::size_t valid) noexcept {
    // x << left modulo 2^32, then round(x m / 2^31) with ties up (no saturation: m < 2^31).
    const int32x4_t high = vqrdmulhq_s32(vshlq_s32(sum, r.left), r.multiplier);
    // Rounding right shift by `right` (r.right holds its negation): srshl rounds ties up; a negative value less 1
    // first makes those ties go away from zero. A lane with no right shift has the mask 0 and keeps high.
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(high, r.right), 31);
    int32x4_t v = vrshlq_s32(vqaddq_s32(high, fixup), r.right);
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(-256)), vdupq_n_s32(255));
    v = vaddq_s32(v, r.zero);
    const int8x8_t bytes = vqmovn_s16(vcombine_s16(vqmovn_s32(v), vdup_n_s16(0)));
    // Rationale: through a buffer and memcpy, which the compiler sees writing y (a lane store through a cast
    // pointer leaves GCC 12 believing the output uninitialized).
    std::int8_t eight[8];
    vst1_s8(eight, bytes);
    std::memcpy(y, eight, valid);
  }
};

#if defined(__ARM_FEATURE_MATMUL_INT8)

/// The operations of kernels/detail/int8_packed.hpp's pair tile with Armv8.6-A's int8 matrix multiply (i8mm,
/// `+i8mm`): `smmla` adds to a q register's 4 lanes the 2 x 2 products of two rows' 8 inputs (16 bytes, staged only
/// where K is not a multiple of 8) with two channels' 8 packed weights, 32 multiply-accumulates where `sdot` does
/// 16. A block is 4 channels (two pairs), requantized as neon_dotprod_packed_ops once `zip1`/`zip2` of the pairs'
/// 64-bit halves give each row's 4 channels in order.
struct neon_i8mm_packed_ops : neon_dotprod_packed_ops {
  using format = int8_packed::lane_format<4, 0, 8>;
  // 32 registers: tiles of up to 8 rows (4 pairs) with up to 16 sums of 2 x 2 (two per block and pair of rows), 2
  // weight vectors per block and one vector of inputs per pair of rows.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t accumulators = 16;
  static constexpr std::size_t max_panel = 8;

  static accumulator load_pair_start(const std::int32_t* p) noexcept {
    std::int64_t two;
    std::memcpy(&two, p, 8);
    return vreinterpretq_s32_s64(vdupq_n_s64(two));
  }
  static accumulator add_pair_row_starts(accumulator start, std::int32_t first, std::int32_t second) noexcept {
    return vaddq_s32(start, vcombine_s32(vdup_n_s32(first), vdup_n_s32(second)));
  }
  static accumulator pair_rows(const std::int8_t* first, const std::int8_t* second) noexcept {
    return vreinterpretq_s32_s8(vcombine_s8(vld1_s8(first), vld1_s8(second)));
  }
  static accumulator multiply_pair(accumulator sum, accumulator rows, accumulator weights) noexcept {
    return vmmlaq_s32(sum, vreinterpretq_s8_s32(rows), vreinterpretq_s8_s32(weights));
  }
  static accumulator first_row(accumulator a, accumulator b) noexcept {
    return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
  }
  static accumulator second_row(accumulator a, accumulator b) noexcept {
    return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
  }
};

/// The int8 table's neon_i8mm row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::neon_i8mm> {
  static constexpr const char* name = "neon_i8mm";
  using ops = neon_dotprod_int8_ops;
  using product_ops = neon_dotprod_int8_ops;
  using packed_ops = neon_i8mm_packed_ops;
  using int4_ops = neon_int4_ops;
  using int16_ops = neon_int16_ops;
};

#endif  // defined(__ARM_FEATURE_MATMUL_INT8)

/// The int8 table's neon_dotprod row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::neon_dotprod> {
  static constexpr const char* name = "neon_dotprod";
  using ops = neon_dotprod_int8_ops;
  using product_ops = neon_dotprod_int8_ops;
  using packed_ops = neon_dotprod_packed_ops;
  using int4_ops = neon_int4_ops;
  using int16_ops = neon_int16_ops;
};

#endif  // defined(__ARM_FEATURE_DOTPROD)

}  // namespace ctattn::detail

#endif  // defined(__aarch64__) && defined(__ARM_NEON)

#endif  // CTATTN_KERNELS_NEON_INT8_HPP
