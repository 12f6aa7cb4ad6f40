// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_RVV_INT8_HPP
#define CTATTN_KERNELS_RVV_INT8_HPP

/// \file
/// The int8 backend of RISC-V cores with the vector extension (RVV 1.0; `-march=rv32gcv`): the layers' and
/// attention's products with the channels on vector lanes, requantized on the lanes, bit for bit as the scalar
/// kernels (TFLite's requantization).
///
/// | step (per input t of a block of 4 rows x vl channels) | instructions                                       |
/// |-------------------------------------------------------|----------------------------------------------------|
/// | the block's weights of input t                        | `vlse8.v` (strided: w is out x in), `vsext.vf2`    |
/// | per row                                               | `lb` of x[r][t], `vwmacc.vx` (vl multiply-adds into int32 lanes) |
/// | requantization, per row and block                     | `vadd` (starts), `vsll` (left shift), `vsmul` (the doubling high product, round to nearest up), `vssra` (the rounding right shift), `vsadd` (zero point), two `vnclip` (saturated to int8), `vse8` |
///
/// With VLEN = 128, vl = 8 channels (int32 lanes at LMUL 2): 4 rows x 8 channels = 32 multiply-adds for 15
/// instructions, Clang 14's `vsetvli` between element widths included.
///
/// Example: `ctattn::detail::rvv_int8_ops::product_requantized<M, K, N, XS, WS, YS>(x, w, epilogue, y)`, on an RVV
/// build; `static_assert(std::string_view(ctattn::int8_backend_name) == "rvv")` there.
// Rationale: the fixed-point instructions round as the vxrm register says; the kernel sets it to 0 (round to
// nearest up: add half the last bit dropped) at entry. Then `vsmul` gives floor((v m + 2^30) / 2^31), TFLite's
// doubling high product for a multiplier m >= 0 (which never saturates), and `vssra` by e gives (t >> e) plus bit
// e - 1 of t: for t = h - 1 where h < 0 and e > 0, the rounding right shift with ties away from zero that the scalar
// kernel computes (kernels/detail/int8_requantize.hpp, `output_requantizer::scaled`).

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/math/fixed_point.hpp"

#if defined(__riscv_vector)

#include <riscv_vector.h>

// Rationale: Clang 14 names the intrinsics without a prefix (vle8_v_i8m1); the ratified intrinsics (Clang 17 and
// later, GCC 13 and later; `__riscv_v_intrinsic` >= 12000) prefix them with __riscv_.
#if defined(__riscv_v_intrinsic) && __riscv_v_intrinsic >= 12000
#define CTATTN_RVV(name) __riscv_##name
#else
#define CTATTN_RVV(name) name
#endif

namespace ctattn::detail {

/// The layers' and attention's int8 products on RVV: blocks of 4 rows x vl channels, int32 lanes at LMUL 2.
// Rationale: LMUL 2, not 4: with 4 accumulators of LMUL 4 and the block's requantization operands, Clang 14 spilled
// vector registers to a frame whose size is VLEN's (read from `vlenb` at run time), which neither the footprint
// query nor the call graph can bound; at LMUL 2 nothing spills.
struct rvv_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  /// Rows of a block: 4 accumulators of LMUL 2 (8 of the 32 vector registers), the weights' 2 more.
  static constexpr std::size_t tile_rows = 4;

  /// y[r][c0..c0 + vl) for the rows of one block: each row's sums requantized on the lanes and stored.
  template <typename Epilogue>
  // Rationale: the lane vectors by value: RVV's types are sizeless, no member of a struct.
  static inline void store_row(vint32m2_t sums, std::size_t r, vint32m2_t start, vint32m2_t m, vuint32m2_t left,
                               vuint32m2_t right, vuint32m2_t rounds, const Epilogue& e, std::int8_t* out,
                               std::size_t vl) noexcept {
    vint32m2_t v = CTATTN_RVV(vadd_vv_i32m2)(sums, start, vl);
    if constexpr (Epilogue::row_starts) v = CTATTN_RVV(vadd_vx_i32m2)(v, e.row_start[r], vl);
    v = CTATTN_RVV(vsll_vv_i32m2)(v, left, vl);
    const vint32m2_t high = CTATTN_RVV(vsmul_vv_i32m2)(v, m, vl);
    const vuint32m2_t negative = CTATTN_RVV(vand_vv_u32m2)(
        CTATTN_RVV(vsrl_vx_u32m2)(CTATTN_RVV(vreinterpret_v_i32m2_u32m2)(high), 31, vl), rounds, vl);
    const vint32m2_t t = CTATTN_RVV(vsub_vv_i32m2)(high, CTATTN_RVV(vreinterpret_v_u32m2_i32m2)(negative), vl);
    vint32m2_t q = CTATTN_RVV(vssra_vv_i32m2)(t, right, vl);
    q = CTATTN_RVV(vsadd_vx_i32m2)(q, e.zero, vl);
    const vint16m1_t narrow = CTATTN_RVV(vnclip_wx_i16m1)(q, 0, vl);
    CTATTN_RVV(vse8_v_i8mf2)(out, CTATTN_RVV(vnclip_wx_i8mf2)(narrow, 0, vl), vl);
  }

  /// R rows of x (XS apart) against the vl channels of w from c (WS apart), K terms, requantized into y (YS apart).
  template <std::size_t R, std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, typename Epilogue>
  [[gnu::noinline]] static void block(const std::int8_t* x, const std::int8_t* w, std::size_t r0, std::size_t c,
                                      const Epilogue& e, std::int8_t* y, std::size_t vl) noexcept {
    static_assert(R >= 1 && R <= tile_rows);
    vint32m2_t s0 = CTATTN_RVV(vmv_v_x_i32m2)(0, vl);
    vint32m2_t s1 = s0;
    vint32m2_t s2 = s0;
    vint32m2_t s3 = s0;
    const std::int8_t* weights = w + c * WS;
    for (std::size_t t = 0; t < K; ++t) {
      const vint16m1_t wt =
          CTATTN_RVV(vsext_vf2_i16m1)(CTATTN_RVV(vlse8_v_i8mf2)(weights + t, static_cast<std::ptrdiff_t>(WS), vl), vl);
      s0 = CTATTN_RVV(vwmacc_vx_i32m2)(s0, std::int16_t{x[t]}, wt, vl);
      if constexpr (R > 1) s1 = CTATTN_RVV(vwmacc_vx_i32m2)(s1, std::int16_t{x[XS + t]}, wt, vl);
      if constexpr (R > 2) s2 = CTATTN_RVV(vwmacc_vx_i32m2)(s2, std::int16_t{x[2 * XS + t]}, wt, vl);
      if constexpr (R > 3) s3 = CTATTN_RVV(vwmacc_vx_i32m2)(s3, std::int16_t{x[3 * XS + t]}, wt, vl);
    }
    // The block's channels: their starts and multipliers, one load each (strided over quantized_multiplier).
    const vint32m2_t start = CTATTN_RVV(vle32_v_i32m2)(e.column_start + c, vl);
    vint32m2_t m;
    vint32m2_t shift;
    if constexpr (Epilogue::per_channel) {
      constexpr auto stride = static_cast<std::ptrdiff_t>(sizeof(math::quantized_multiplier));
      m = CTATTN_RVV(vlse32_v_i32m2)(&e.multipliers[c].multiplier, stride, vl);
      shift = CTATTN_RVV(vlse32_v_i32m2)(&e.multipliers[c].shift, stride, vl);
    } else {
      m = CTATTN_RVV(vmv_v_x_i32m2)(e.multipliers[0].multiplier, vl);
      shift = CTATTN_RVV(vmv_v_x_i32m2)(e.multipliers[0].shift, vl);
    }
    const vuint32m2_t left = CTATTN_RVV(vreinterpret_v_i32m2_u32m2)(CTATTN_RVV(vmax_vx_i32m2)(shift, 0, vl));
    const vuint32m2_t right =
        CTATTN_RVV(vreinterpret_v_i32m2_u32m2)(CTATTN_RVV(vmax_vx_i32m2)(CTATTN_RVV(vneg_v_i32m2)(shift, vl), 0, vl));
    const vuint32m2_t rounds = CTATTN_RVV(vminu_vx_u32m2)(right, 1, vl);
    store_row(s0, r0, start, m, left, right, rounds, e, y, vl);
    if constexpr (R > 1) store_row(s1, r0 + 1, start, m, left, right, rounds, e, y + YS, vl);
    if constexpr (R > 2) store_row(s2, r0 + 2, start, m, left, right, rounds, e, y + 2 * YS, vl);
    if constexpr (R > 3) store_row(s3, r0 + 3, start, m, left, right, rounds, e, y + 3 * YS, vl);
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart); the channels in blocks as long as the vector allows.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    asm volatile("csrwi vxrm, 0" ::: "memory");  // round to nearest up (the rationale above)
    constexpr std::size_t whole = M - M % tile_rows;
    for (std::size_t c = 0; c < N;) {
      const std::size_t vl = CTATTN_RVV(vsetvl_e32m2)(N - c);
      for (std::size_t r = 0; r < whole; r += tile_rows) {
        block<tile_rows, K, XS, WS, YS>(x + r * XS, w, r, c, e, y + r * YS + c, vl);
      }
      if constexpr (M % tile_rows != 0) {
        block<M % tile_rows, K, XS, WS, YS>(x + whole * XS, w, whole, c, e, y + whole * YS + c, vl);
      }
      c += vl;
    }
  }
};

// Rationale: the dot-product operations of kernels/detail/int8_simd.hpp (int8 attention over sliding windows, the
// zero points' sums) stay on their scalar loops for now (`ops` is void); the row runs the products.
/// The int8 table's rvv row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::rvv> {
  static constexpr const char* name = "rvv";
  using ops = void;
  using product_ops = rvv_int8_ops;
  using packed_ops = void;
  using int4_ops = void;
  using int16_ops = void;
};

}  // namespace ctattn::detail

#undef CTATTN_RVV

#endif  // defined(__riscv_vector)

#endif  // CTATTN_KERNELS_RVV_INT8_HPP
