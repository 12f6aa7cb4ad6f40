// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_NEON_INT16_HPP
#define CTATTN_KERNELS_NEON_INT16_HPP

/// \file
/// NEON's int16 products (AArch64; the neon, neon_dotprod and neon_i8mm rows' `int16_ops`):
/// kernels/detail/int16_simd.hpp's 16x8 fully-connected kernel and int16 batch matmul on 8 int16 terms a register,
/// `smlal` and `smlal2` into 4 int32 lanes; int8 weights widened by `sxtl` as they are loaded.
///
/// Tested by the backend test under qemu-aarch64 (tests/backend/, test_backend_neon: tests/support/int16_cases.hpp,
/// each kernel against sums taken term by term over every tail and TFLite Micro's arithmetic).
///
/// Example: `static_assert(ctattn::detail::neon_int16_lanes::step == 8);` (on an AArch64 target)

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/int16_simd.hpp"

#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

namespace ctattn::detail {

/// kernels/detail/int16_simd.hpp's lanes on a 128-bit register.
struct neon_int16_lanes {
  static constexpr std::size_t step = 8;
  // Rationale: of the 32 registers, the 16x8 tile takes 16 sums, 4 channels' weights and a row; the batch matmul's
  // 24 sums, two rows of a's two bytes and a row of b.
  static constexpr std::size_t fc_rows = 4;
  static constexpr std::size_t fc_channels = 4;
  static constexpr std::size_t product_rows = 2;
  static constexpr std::size_t product_columns = 6;
  using terms = int16x8_t;
  using sums = int32x4_t;

  static sums zero() noexcept { return vdupq_n_s32(0); }
  static terms load(const std::int16_t* p) noexcept { return vld1q_s16(p); }
  static terms load(const std::int8_t* p) noexcept { return vmovl_s8(vld1_s8(p)); }
  static sums multiply_add(sums s, terms a, terms b) noexcept {
    return vmlal_high_s16(vmlal_s16(s, vget_low_s16(a), vget_low_s16(b)), a, b);
  }
  static terms high_byte(terms a) noexcept { return vshrq_n_s16(a, 8); }
  static terms low_byte(terms a) noexcept { return vandq_s16(a, vdupq_n_s16(0xFF)); }
  static std::int32_t total(sums s) noexcept { return vaddvq_s32(s); }
  /// t[i] += total(s[i]) x 2^Shift for 4 registers: three pairwise adds (`addp`), then widened to int64 (`sxtl`).
  template <int Shift>
  static void add_totals(const sums* s, std::int64_t* t) noexcept {
    const int32x4_t totals = vpaddq_s32(vpaddq_s32(s[0], s[1]), vpaddq_s32(s[2], s[3]));
    vst1q_s64(t, vaddq_s64(vld1q_s64(t), vshlq_n_s64(vmovl_s32(vget_low_s32(totals)), Shift)));
    vst1q_s64(t + 2, vaddq_s64(vld1q_s64(t + 2), vshlq_n_s64(vmovl_high_s32(totals), Shift)));
  }
  /// 4 channels' requantizers, two channels a register: the reduced multiplier, the rounding term 2^(total - 1),
  /// and the negated shift (`sshl` by a negative count shifts right, arithmetically).
  struct requantizers {
    uint32x2_t reduced[2];
    int64x2_t round[2], shift[2];
  };
  static requantizers make_requantizers(const kernels::int64_requantizer* q) noexcept {
    requantizers r{};
    for (int h = 0; h < 2; ++h) {
      const std::uint32_t reduced[2]{static_cast<std::uint32_t>(q[2 * h].reduced),
                                     static_cast<std::uint32_t>(q[2 * h + 1].reduced)};
      const std::int64_t round[2]{std::int64_t{1} << (q[2 * h].total - 1), std::int64_t{1} << (q[2 * h + 1].total - 1)};
      const std::int64_t shift[2]{-q[2 * h].total, -q[2 * h + 1].total};
      r.reduced[h] = vld1_u32(reduced);
      r.round[h] = vld1q_s64(round);
      r.shift[h] = vld1q_s64(shift);
    }
    return r;
  }
  /// y[j] = q's j-th requantizer of total[j], 4 channels at once: the int64 product with the (positive) reduced
  /// multiplier from the low and high words (`umull`, `smull`), the rounding term added, `sshl` by the negated shift,
  /// the low words kept (TFLite's narrowing to int32, `xtn`) and saturated to int16 (`sqxtn`).
  static void requantize(const std::int64_t* total, const requantizers& q, std::int16_t* y) noexcept {
    int32x2_t low[2];
    for (int h = 0; h < 2; ++h) {
      const int64x2_t a = vld1q_s64(total + 2 * h);
      const uint64x2_t low_product = vmull_u32(vmovn_u64(vreinterpretq_u64_s64(a)), q.reduced[h]);
      const int64x2_t high_product = vmull_s32(vshrn_n_s64(a, 32), vreinterpret_s32_u32(q.reduced[h]));
      const int64x2_t product = vaddq_s64(vreinterpretq_s64_u64(low_product), vshlq_n_s64(high_product, 32));
      low[h] = vmovn_s64(vshlq_s64(vaddq_s64(product, q.round[h]), q.shift[h]));
    }
    vst1_s16(y, vqmovn_s32(vcombine_s32(low[0], low[1])));
  }
};

/// The NEON rows' int16 products.
struct neon_int16_ops : int16_simd_ops<neon_int16_lanes> {};

}  // namespace ctattn::detail

#endif  // defined(__aarch64__) && defined(__ARM_NEON)

#endif  // CTATTN_KERNELS_NEON_INT16_HPP
