// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_HELIUM_INT16_HPP
#define CTATTN_KERNELS_HELIUM_INT16_HPP

/// \file
/// Helium's int16 kernels (Arm M-profile Vector Extension, e.g. Cortex-M55): ADD and MUL 8 elements a step (`add`,
/// `multiply`, below), and the products: the 16x8 fully-connected kernel
/// (kernels/int16.hpp's `int16_fully_connected`: int16 rows against int8 weights widened to 16 bits by `vldrb.s16`)
/// and the int16 batch matmul (`int16_product_transposed`), both by `vmlaldava.s16`, which multiplies 8 pairs of
/// int16 lanes and adds the products to an int64 held in two registers: the sums are exact for any K, as TFLite's
/// int64 ones, with no chunks. A row of x (or of a) is loaded once per step for 4 channels (rows of b); the last K % 8
/// terms by tail-predicated loads (`vctp16`), whose disabled lanes read as zero and add nothing. The int64 bias and
/// TFLite's requantization (`kernels::requantize_int64`) follow, per output.
///
/// Built where kernels/helium_int8.hpp is (`__ARM_FEATURE_MVE` with its integer bit, Clang or GCC 13 and later).
/// Tested on the target by the firmware board `m55-helium` (the image int16_cases: tests/support/int16_cases.hpp
/// against TensorFlow Lite Micro's arithmetic, and each kernel against sums taken term by term over every tail).
///
/// Example: `static_assert(ctattn::detail::helium_int16_ops::channels == 4);` (on a Helium target)

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/kernels/helium_int8.hpp"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (defined(__clang__) || __GNUC__ >= 13)

#include <arm_mve.h>

namespace ctattn::detail {

struct helium_int16_ops : int16_ops_defaults {
  static constexpr bool has_fully_connected = true;
  static constexpr bool has_product_transposed = true;
  /// Every K: the int64 sums cannot overflow.
  template <std::size_t K>
  static constexpr bool takes = true;
  /// The channels (rows of b) one pass computes against one row.
  // Rationale: four int64 sums are 8 of the core's registers; with the row's pointer, four channel pointers and the
  // loop's end, the loop holds every value in a register (no spill): 9 instructions per 32 multiply-accumulates.
  static constexpr std::size_t channels = 4;

  /// The sums of one row x (K int16 terms) against C <= 4 rows at w (WS elements apart), each started at its s.
  /// `Load` reads 8 lanes of a row of w as int16: `vldrb.s16` for int8 weights, `vld1` for int16 rows.
  template <std::size_t K, std::size_t WS, std::size_t C, typename W>
  CTATTN_ALWAYS_INLINE static void row_against(const std::int16_t* x, const W* w,
                                               std::int64_t (&s)[channels]) noexcept {
    constexpr std::size_t whole = K - K % 8;
    const W* w0 = w;
    // Rationale: a channel past C points at w, never past the weights' end (its loads are never made).
    const W* w1 = C > 1 ? w + WS : w;
    const W* w2 = C > 2 ? w + 2 * WS : w;
    const W* w3 = C > 3 ? w + 3 * WS : w;
    std::int64_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
#pragma GCC unroll 2
    for (const std::int16_t* const end = x + whole; x != end; x += 8, w0 += 8, w1 += 8, w2 += 8, w3 += 8) {
      const int16x8_t xv = __arm_vld1q_s16(x);
      s0 = __arm_vmlaldavaq_s16(s0, xv, load(w0));
      if constexpr (C > 1) s1 = __arm_vmlaldavaq_s16(s1, xv, load(w1));
      if constexpr (C > 2) s2 = __arm_vmlaldavaq_s16(s2, xv, load(w2));
      if constexpr (C > 3) s3 = __arm_vmlaldavaq_s16(s3, xv, load(w3));
    }
    if constexpr (whole < K) {
      const mve_pred16_t lanes = __arm_vctp16q(K - whole);
      const int16x8_t xv = __arm_vldrhq_z_s16(x, lanes);
      s0 = __arm_vmlaldavaq_s16(s0, xv, load(w0, lanes));
      if constexpr (C > 1) s1 = __arm_vmlaldavaq_s16(s1, xv, load(w1, lanes));
      if constexpr (C > 2) s2 = __arm_vmlaldavaq_s16(s2, xv, load(w2, lanes));
      if constexpr (C > 3) s3 = __arm_vmlaldavaq_s16(s3, xv, load(w3, lanes));
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
  }

  /// 8 int8 weights widened to int16 lanes (`vldrb.s16`); with `lanes`, the disabled ones zero.
  CTATTN_ALWAYS_INLINE static int16x8_t load(const std::int8_t* p) noexcept { return __arm_vldrbq_s16(p); }
  CTATTN_ALWAYS_INLINE static int16x8_t load(const std::int8_t* p, mve_pred16_t lanes) noexcept {
    return __arm_vldrbq_z_s16(p, lanes);
  }
  /// 8 int16 terms (`vldrh.s16`); with `lanes`, the disabled ones zero.
  CTATTN_ALWAYS_INLINE static int16x8_t load(const std::int16_t* p) noexcept { return __arm_vld1q_s16(p); }
  CTATTN_ALWAYS_INLINE static int16x8_t load(const std::int16_t* p, mve_pred16_t lanes) noexcept {
    return __arm_vldrhq_z_s16(p, lanes);
  }

  /// Every row of x against C channels starting at channel c of w: y[i][c + j] for j < C.
  template <std::size_t C, std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  CTATTN_ALWAYS_INLINE static void fc_channels(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                               const std::int64_t (&bias)[N], const math::quantized_multiplier (&m)[MC],
                                               std::size_t c, std::int16_t (&y)[M][N]) noexcept {
    const kernels::int64_requantizer q[channels]{kernels::int64_requantizer{m[MC == 1 ? 0 : c]},
                                                 kernels::int64_requantizer{m[MC == 1 || C < 2 ? 0 : c + 1]},
                                                 kernels::int64_requantizer{m[MC == 1 || C < 3 ? 0 : c + 2]},
                                                 kernels::int64_requantizer{m[MC == 1 || C < 4 ? 0 : c + 3]}};
    for (std::size_t i = 0; i < M; ++i) {
      std::int64_t s[channels]{};
#pragma GCC unroll 4
      for (std::size_t j = 0; j < C; ++j) s[j] = bias[c + j];
      row_against<K, K, C>(x[i], w[c], s);
#pragma GCC unroll 4
      for (std::size_t j = 0; j < C; ++j) y[i][c + j] = q[j](s[j]);
    }
  }

  /// kernels/int16.hpp's `int16_fully_connected` at run time: 4 channels a pass over every row of x (the weights of
  /// a pass stay in the cache while the rows go by), the last N % 4 in one narrower pass.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  static void fully_connected(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                              const std::int64_t (&bias)[N], const math::quantized_multiplier (&m)[MC],
                              std::int16_t (&y)[M][N]) noexcept {
    std::size_t c = 0;
    for (; c + channels <= N; c += channels) fc_channels<channels>(x, w, bias, m, c, y);
    if constexpr (N % channels == 3) fc_channels<3>(x, w, bias, m, c, y);
    if constexpr (N % channels == 2) fc_channels<2>(x, w, bias, m, c, y);
    if constexpr (N % channels == 1) fc_channels<1>(x, w, bias, m, c, y);
  }

  /// Every row of a against C rows of b starting at row j: out[i][j + r] for r < C.
  template <std::size_t C, std::size_t M, std::size_t K, std::size_t N>
  CTATTN_ALWAYS_INLINE static void product_columns(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                                   math::quantized_multiplier m, std::size_t j,
                                                   std::int16_t (&out)[M][N]) noexcept {
    const kernels::int64_requantizer q{m};
    for (std::size_t i = 0; i < M; ++i) {
      std::int64_t s[channels]{};
      row_against<K, K, C>(a[i], b[j], s);
#pragma GCC unroll 4
      for (std::size_t r = 0; r < C; ++r) out[i][j + r] = q(s[r]);
    }
  }

  /// kernels/int16.hpp's `int16_product_transposed` at run time: 4 rows of b a pass over every row of a, the last
  /// N % 4 in one narrower pass.
  template <std::size_t M, std::size_t K, std::size_t N>
  static void product_transposed(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                 math::quantized_multiplier m, std::int16_t (&out)[M][N]) noexcept {
    std::size_t j = 0;
    for (; j + channels <= N; j += channels) product_columns<channels>(a, b, m, j, out);
    if constexpr (N % channels == 3) product_columns<3>(a, b, m, j, out);
    if constexpr (N % channels == 2) product_columns<2>(a, b, m, j, out);
    if constexpr (N % channels == 1) product_columns<1>(a, b, m, j, out);
  }

  static constexpr bool has_add = true;
  static constexpr bool has_multiply = true;
  /// Whether `add` takes these multipliers (each one `helium_int8_ops::scaled` takes).
  static constexpr bool add_takes(math::quantized_multiplier a, math::quantized_multiplier b,
                                  math::quantized_multiplier out) noexcept {
    return helium_int8_ops::add_takes(a, b, out);
  }
  /// Whether `multiply` takes this multiplier.
  static constexpr bool multiply_takes(math::quantized_multiplier m) noexcept { return helium_int8_ops::takes(m); }

  static constexpr bool has_row_max = true;
  /// The largest of x[0, n) (the int16 softmax's first pass), 8 lanes a step folded into the running largest by
  /// `vmaxv`, the last n % 8 by a tail-predicated load and a predicated `vmaxv` (inactive lanes take no part).
  static std::int16_t row_max(const std::int16_t* x, std::size_t n) noexcept {
    std::int16_t largest = -32768;
    for (std::size_t i = 0; i < n; i += 8) {
      const mve_pred16_t lanes = __arm_vctp16q(static_cast<std::uint32_t>(n - i));
      largest = __arm_vmaxvq_p_s16(largest, __arm_vldrhq_z_s16(x + i, lanes), lanes);
    }
    return largest;
  }

  /// kernels/int16.hpp's `int16_add_rows` at run time over n elements, 8 a step: one load of 8 int16 lanes per
  /// operand, widened into two int32 vectors already shifted left by 15 (`vshllb`, `vshllt`: the even and the odd
  /// lanes), each scaled by its multiplier (`helium_int8_ops::scaled`: `output_requantizer::scaled`'s value), summed,
  /// requantized, and narrowed back with saturation into the even and odd lanes (`vqmovnb`, `vqmovnt`); the last n % 8
  /// by tail-predicated loads and stores.
  template <math::quantized_multiplier A, math::quantized_multiplier B, math::quantized_multiplier Out>
    requires(add_takes(A, B, Out))
  static void add(const std::int16_t* a, const std::int16_t* b, std::int16_t* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i += 8) {
      const mve_pred16_t lanes = __arm_vctp16q(static_cast<std::uint32_t>(n - i));
      const int16x8_t va = __arm_vldrhq_z_s16(a + i, lanes);
      const int16x8_t vb = __arm_vldrhq_z_s16(b + i, lanes);
      const int32x4_t even =
          helium_int8_ops::scaled<Out>(__arm_vaddq_s32(helium_int8_ops::scaled<A>(__arm_vshllbq_n_s16(va, 15)),
                                                       helium_int8_ops::scaled<B>(__arm_vshllbq_n_s16(vb, 15))));
      const int32x4_t odd =
          helium_int8_ops::scaled<Out>(__arm_vaddq_s32(helium_int8_ops::scaled<A>(__arm_vshlltq_n_s16(va, 15)),
                                                       helium_int8_ops::scaled<B>(__arm_vshlltq_n_s16(vb, 15))));
      __arm_vstrhq_p_s16(out + i, __arm_vqmovntq_s32(__arm_vqmovnbq_s32(va, even), odd), lanes);
    }
  }

  /// kernels/int16.hpp's `int16_multiply_rows` at run time over n elements, 8 a step: the int32 products of the even
  /// and the odd lanes (`vmullb`, `vmullt`), each scaled by M (`helium_int8_ops::scaled`) and narrowed back with
  /// saturation (`vqmovnb`, `vqmovnt`); the last n % 8 by tail-predicated loads and stores.
  template <math::quantized_multiplier M>
    requires(multiply_takes(M))
  static void multiply(const std::int16_t* a, const std::int16_t* b, std::int16_t* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i += 8) {
      const mve_pred16_t lanes = __arm_vctp16q(static_cast<std::uint32_t>(n - i));
      const int16x8_t va = __arm_vldrhq_z_s16(a + i, lanes);
      const int16x8_t vb = __arm_vldrhq_z_s16(b + i, lanes);
      const int32x4_t even = helium_int8_ops::scaled<M>(__arm_vmullbq_int_s16(va, vb));
      const int32x4_t odd = helium_int8_ops::scaled<M>(__arm_vmulltq_int_s16(va, vb));
      __arm_vstrhq_p_s16(out + i, __arm_vqmovntq_s32(__arm_vqmovnbq_s32(va, even), odd), lanes);
    }
  }
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (...)

#endif  // CTATTN_KERNELS_HELIUM_INT16_HPP
