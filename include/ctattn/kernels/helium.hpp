// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_HELIUM_HPP
#define CTATTN_KERNELS_HELIUM_HPP

/// \file
/// The Helium backend (Arm M-profile Vector Extension with floating point, e.g. Cortex-M55): the vector operations
/// of kernels/detail/simd.hpp on 4 float lanes in q registers. The operations and their contracts are those of
/// kernels/avx512.hpp. Tails are tail-predicated: `vctp32q(n)` enables the first n lanes of a load or a store, and
/// the lanes it disables are neither read nor written.
///
/// | operation                  | Helium                                                   | note                  |
/// |----------------------------|----------------------------------------------------------|-----------------------|
/// | `load_partial(p, n, fill)` | `vctp32q(n)`, `vldrwq_z_f32`, `vpselq_f32` with `fill`   | lanes past n unread   |
/// | `store_partial(p, x, n)`   | `vctp32q(n)`, `vstrwq_p_f32`                             | lanes past n kept     |
/// | `fma(a, b, c)`             | `vfmaq_f32`: a b + c, one rounding                       |                       |
/// | `max`, `reduce_max`        | `vmaxnmq_f32`, `vmaxnmvq_f32`; NaN found in the bits     | NaN wins, as in NEON  |
/// | `reduce_add`               | (x0 + x1) + (x2 + x3) on the q register's s lanes        | no float VADDV in MVE |
/// | `exp(x)`                   | avx512_ops::exp's method; NaN lanes put back at the end  | NaN stays NaN         |
///
/// Sizes for a microcontroller: 8 q registers hold a product tile of 3 rows x 2 vectors (6 accumulators and 2
/// loads; the row's factor of A is a scalar operand of `vfma`), and the fused attention kernel packs at most
/// `key_buffer_floats` = 1024 floats (4 KiB) of keys on the stack per chunk of keys.
///
/// Built only where the compiler defines `__ARM_FEATURE_MVE` with its floating-point bit (2); kernels/backend.hpp
/// selects it with Clang or GCC 13 and later (its table says why not GCC 12). Tested on the target by the
/// firmware board `m55-helium` (Clang 14, QEMU mps3-an547; docs/firmware.md).
///
/// Example: `ctattn::detail::helium_ops::reduce_add(ctattn::detail::helium_ops::broadcast(1.0f)) == 4.0f`.

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"

#include "ctattn/kernels/detail/exp_constants.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

// Empty unless the target has MVE with floating point (-mcpu=cortex-m55, -march=armv8.1-m.main+mve.fp) and the
// compiler is Clang or GCC 13 or later (kernels/backend.hpp says why): the operations exist exactly where the tables
// choose them.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && (defined(__clang__) || __GNUC__ >= 13)

#include <arm_mve.h>

#include <cstdint>
#include <limits>

namespace ctattn::detail {

// Rationale: the intrinsics are called by their __arm_ names, which arm_mve.h always declares; the short names
// disappear when a program defines __ARM_MVE_PRESERVE_USER_NAMESPACE.
struct helium_ops : float_ops_defaults {
  using reg = float32x4_t;
  static constexpr std::size_t lanes = 4;
  // 8 q registers: 3 x 2 accumulators and two loads; the broadcast factor stays in a core register.
  static constexpr std::size_t tile_rows = 3;
  static constexpr std::size_t tile_vectors = 2;
  // The transposed product's tile: 2 rows of a against 2 rows of b, 4 accumulators, two loads of b and one of a.
  static constexpr std::size_t dot_tile_rows = 2;
  static constexpr std::size_t dot_rows = 2;
  // Floats of packed keys the fused attention kernel keeps on the stack (4 KiB).
  static constexpr std::size_t key_buffer_floats = 1024;

  static reg zero() noexcept { return __arm_vdupq_n_f32(0.0f); }
  static reg broadcast(float x) noexcept { return __arm_vdupq_n_f32(x); }
  static reg load(const float* p) noexcept { return __arm_vld1q_f32(p); }
  static void store(float* p, reg x) noexcept { __arm_vst1q_f32(p, x); }
  static mve_pred16_t first(std::size_t n) noexcept { return __arm_vctp32q(static_cast<std::uint32_t>(n)); }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    const mve_pred16_t lanes_read = first(n);
    return __arm_vpselq_f32(__arm_vldrwq_z_f32(p, lanes_read), __arm_vdupq_n_f32(fill), lanes_read);
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept { __arm_vstrwq_p_f32(p, x, first(n)); }
  static reg add(reg a, reg b) noexcept { return __arm_vaddq_f32(a, b); }
  static reg mul(reg a, reg b) noexcept { return __arm_vmulq_f32(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return __arm_vfmaq_f32(c, a, b); }
  // a / b for b in [1, 2^126] (the fast activations' denominators), within 2 ulp.
  // Rationale: MVE has no float division and no reciprocal estimate. 1 / b starts from its bits subtracted from a
  // constant (the exponent negated, the mantissa's reciprocal guessed linearly: at most 10% off), then three Newton
  // steps r = r (2 - b r), each squaring the relative error (10% -> 1% -> 1e-4 -> rounding).
  static reg div(reg a, reg b) noexcept {
    const reg two = __arm_vdupq_n_f32(2.0f);
    const uint32x4_t guess = __arm_vsubq_u32(__arm_vdupq_n_u32(0x7EF3'11C3u), __arm_vreinterpretq_u32_f32(b));
    reg r = __arm_vreinterpretq_f32_u32(guess);
    for (int step = 0; step < 3; ++step) r = __arm_vmulq_f32(r, __arm_vfmsq_f32(two, b, r));
    return __arm_vmulq_f32(a, r);
  }

  // The lanes whose magnitude is above infinity's bits: NaN.
  // Rationale: NaN is found by an integer compare of the bits, not by a float compare, whose NaN lanes are not
  // portable: VCMP LT and LE hold for NaN, Clang 14 gives the intrinsics IEEE meaning instead, and with Clang 14
  // vcmpneq_f32(x, x) found no NaN lane in [1, NaN, NaN, NaN] (under QEMU).
  static uint32x4_t magnitude_bits(reg x) noexcept {
    return __arm_vandq_u32(__arm_vreinterpretq_u32_f32(x), __arm_vdupq_n_u32(0x7FFF'FFFFu));
  }
  static mve_pred16_t nan_lanes(uint32x4_t magnitude) noexcept { return __arm_vcmphiq_n_u32(magnitude, 0x7F80'0000u); }

  // Rationale: MVE's only float maximum is IEEE maxNum, which returns the number when one operand is NaN. The
  // fast softmax reads a NaN maximum as "hand the row to the exact kernel"; a row of NaN and -inf would
  // otherwise look fully masked and get zeros. So a NaN lane gives NaN (a + b), as NEON's vmaxq does.
  static reg max(reg a, reg b) noexcept {
    const mve_pred16_t either_nan = nan_lanes(__arm_vmaxq_u32(magnitude_bits(a), magnitude_bits(b)));
    return __arm_vpselq_f32(__arm_vaddq_f32(a, b), __arm_vmaxnmq_f32(a, b), either_nan);
  }
  static float reduce_add(reg x) noexcept {
    return (__arm_vgetq_lane_f32(x, 0) + __arm_vgetq_lane_f32(x, 1)) +
           (__arm_vgetq_lane_f32(x, 2) + __arm_vgetq_lane_f32(x, 3));
  }
  static float reduce_max(reg x) noexcept {
    if (nan_lanes(magnitude_bits(x)) != 0) return std::numeric_limits<float>::quiet_NaN();
    return __arm_vmaxnmvq_f32(-std::numeric_limits<float>::infinity(), x);
  }

  // The method of avx512_ops::exp; 2^n is built in the exponent field ((n + 127) << 23), valid because inputs
  // below `lowest` (n < -126) are replaced by 0 and inputs above 88 are clamped to 88. The Horner steps take their
  // constants as scalar operands (vfmas: p r + c), so that the polynomial needs 3 q registers. NaN lanes (which
  // vminnmq would clamp to 88 and the compare with `lowest` send to 0) are put back at the end.
  static reg exp(reg x) noexcept {
    const reg clamped = __arm_vminnmq_f32(x, __arm_vdupq_n_f32(88.0f));
    const reg n = __arm_vrndnq_f32(__arm_vmulq_n_f32(clamped, exp_constants::log2e));
    reg r = __arm_vfmaq_n_f32(clamped, n, -exp_constants::ln2_high);
    r = __arm_vfmaq_n_f32(r, n, -exp_constants::ln2_low);
    reg p = __arm_vdupq_n_f32(exp_constants::c7);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c6);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c5);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c4);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c3);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c2);
    p = __arm_vfmasq_n_f32(p, r, 1.0f);
    p = __arm_vfmasq_n_f32(p, r, 1.0f);
    const int32x4_t bits = __arm_vshlq_n_s32(__arm_vaddq_n_s32(__arm_vcvtq_s32_f32(n), 127), 23);
    const reg result = __arm_vmulq_f32(p, __arm_vreinterpretq_f32_s32(bits));
    // x >= lowest: false for -inf, and for NaN under both meanings of the compare.
    const mve_pred16_t normal = __arm_vcmpgeq_n_f32(x, exp_constants::lowest);
    const reg in_range = __arm_vpselq_f32(result, __arm_vdupq_n_f32(0.0f), normal);
    return __arm_vpselq_f32(x, in_range, nan_lanes(magnitude_bits(x)));
  }
};

/// The float table's helium row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::helium> {
  static constexpr const char* name = "helium";
  using ops = helium_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && (...)

#endif  // CTATTN_KERNELS_HELIUM_HPP
