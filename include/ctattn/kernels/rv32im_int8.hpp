// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_RV32IM_INT8_HPP
#define CTATTN_KERNELS_RV32IM_INT8_HPP

/// \file
/// The int8 backend of 32-bit RISC-V cores with the M extension (RV32IM, RV32IMAC, RV32GC: no packed SIMD, 31
/// general registers, `mulh` for the high word of a 32 x 32 product): the layers' and attention's products in 4 x 4
/// register tiles, requantized with `mulh` (kernels/detail/int8_requantize.hpp, `output_requantizer::high_product`).
///
/// | step (per term of a 4 x 4 tile) | instructions (GCC 12 -Os)                                   |
/// |---------------------------------|-------------------------------------------------------------|
/// | load 4 inputs and 4 weights     | 8 `lb`                                                      |
/// | multiply and add                | 16 `mul`, 16 `add` into sums held in registers              |
/// | loop                            | 2 `addi` (the two pointers), 1 `bne`                        |
///
/// So 43 instructions per 16 multiply-accumulates (2.7 per MAC), against 16 per 4 (4 per MAC) for the scalar row's
/// 2 x 2 tile, which the Cortex-M3's 13 registers hold.
///
/// Example: `ctattn::detail::rv32im_int8_ops::product_requantized<M, K, N, XS, WS, YS>(x, w, epilogue, y)`, on an
/// RV32IM build; `static_assert(std::string_view(ctattn::int8_backend_name) == "rv32im")` there.

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/detail/int8_tiles.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/kernels/detail/target.hpp"

#if CTATTN_DETAIL_RV32_MUL

namespace ctattn::detail {

/// The layers' and attention's int8 products on RV32IM: `kernels::scalar_product_requantized` in 4 x 4 tiles.
struct rv32im_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  /// Rows and channels of a tile: 16 sums, 4 inputs, a weight, a product and two pointers in registers.
  // Rationale: 4 x 4 rather than 3 x 4 or 6 x 2 (the int8 sorter's 6 rows): each costs 2.8 instructions per
  // multiply-accumulate at 6 rows (4 + 2 rows in two tiles, or 3 + 3), and 4 x 4 is the least where rows are many.
  static constexpr std::size_t tile_rows = 4;
  static constexpr std::size_t tile_channels = 4;

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart).
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    kernels::scalar_product_requantized<M, K, N, XS, WS, YS, tile_rows, tile_channels>(x, w, e, y);
  }
};

// Rationale: no integer SIMD, so no dot-product operations (`ops` is void and the other int8 kernels run their
// scalar loops, whose requantization takes `mulh` through int8_requantize.hpp); the row runs the products.
/// The int8 table's rv32im row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::rv32im> {
  static constexpr const char* name = "rv32im";
  using ops = void;
  using product_ops = rv32im_int8_ops;
  using packed_ops = void;
  using int4_ops = void;
  using int16_ops = void;
};

}  // namespace ctattn::detail

#endif  // RV32 with the M extension

#endif  // CTATTN_KERNELS_RV32IM_INT8_HPP
