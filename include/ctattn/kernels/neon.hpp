// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_NEON_HPP
#define CTATTN_KERNELS_NEON_HPP

/// \file
/// The AArch64 NEON backend: the vector operations of kernels/detail/simd.hpp on 4 float lanes in q registers.
/// The operations and their contracts are those of kernels/avx512.hpp. NEON has no masked loads: a partial vector
/// goes through a 4-float buffer.
///
/// Example: `ctattn::detail::neon_ops::reduce_add(ctattn::detail::neon_ops::broadcast(1.0f)) == 4.0f`.

#include <cstddef>

#include "ctattn/kernels/backend_rows.hpp"

#include "ctattn/kernels/detail/exp_constants.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"

// Empty unless the target is AArch64 with NEON: kernels/backend.hpp includes it then.
#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

namespace ctattn::detail {

struct neon_ops : float_ops_defaults {
  static constexpr bool has_transpose_sum = true;
  using reg = float32x4_t;
  static constexpr std::size_t lanes = 4;
  // 32 registers: 8 x 3 accumulators, three loads and a broadcast.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t tile_vectors = 3;
  // The transposed product's tile: 4 rows of a against 4 rows of b, 16 dot products in 4 transpose_sums.
  static constexpr std::size_t dot_tile_rows = 4;
  static constexpr std::size_t dot_rows = 4;
  static constexpr std::size_t key_buffer_floats = 8192;

  static reg zero() noexcept { return vdupq_n_f32(0.0f); }
  static reg broadcast(float x) noexcept { return vdupq_n_f32(x); }
  static reg load(const float* p) noexcept { return vld1q_f32(p); }
  static void store(float* p, reg x) noexcept { vst1q_f32(p, x); }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    float buffer[4] = {fill, fill, fill, fill};
    for (std::size_t l = 0; l < n; ++l) buffer[l] = p[l];
    return vld1q_f32(buffer);
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept {
    float buffer[4];
    vst1q_f32(buffer, x);
    for (std::size_t l = 0; l < n; ++l) p[l] = buffer[l];
  }
  static reg add(reg a, reg b) noexcept { return vaddq_f32(a, b); }
  static reg mul(reg a, reg b) noexcept { return vmulq_f32(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return vfmaq_f32(c, a, b); }
  static reg div(reg a, reg b) noexcept { return vdivq_f32(a, b); }
  static reg max(reg a, reg b) noexcept { return vmaxq_f32(a, b); }
  static float reduce_add(reg x) noexcept { return vaddvq_f32(x); }
  static float reduce_max(reg x) noexcept { return vmaxvq_f32(x); }

  // Lane l of the result is the sum of x[l]'s lanes: pairwise adds of pairwise adds.
  static reg transpose_sum(const reg (&x)[4]) noexcept {
    return vpaddq_f32(vpaddq_f32(x[0], x[1]), vpaddq_f32(x[2], x[3]));
  }

  // The method of avx512_ops::exp; 2^n is built in the exponent field ((n + 127) << 23). vminq keeps NaN.
  static reg exp(reg x) noexcept {
    const reg clamped = vminq_f32(x, vdupq_n_f32(88.0f));
    const reg n = vrndnq_f32(vmulq_f32(clamped, vdupq_n_f32(exp_constants::log2e)));
    reg r = vfmsq_f32(clamped, n, vdupq_n_f32(exp_constants::ln2_high));
    r = vfmsq_f32(r, n, vdupq_n_f32(exp_constants::ln2_low));
    reg p = vdupq_n_f32(exp_constants::c7);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c6), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c5), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c4), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c3), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c2), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    const int32x4_t bits = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    const reg result = vmulq_f32(p, vreinterpretq_f32_s32(bits));
    const uint32x4_t underflow = vcltq_f32(x, vdupq_n_f32(exp_constants::lowest));
    return vbslq_f32(underflow, vdupq_n_f32(0.0f), result);
  }
};

/// The float table's neon row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::neon> {
  static constexpr const char* name = "neon";
  using ops = neon_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__aarch64__) && defined(__ARM_NEON)

#endif  // CTATTN_KERNELS_NEON_HPP
