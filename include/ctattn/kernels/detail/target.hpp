// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_TARGET_HPP
#define CTATTN_KERNELS_DETAIL_TARGET_HPP

/// \file
/// What kind of machine the build targets, where a kernel's blocking depends on it: one definition for every kernel.

/// 1 where the build targets a 32-bit RISC-V core with the M extension (RV32IM, RV32IMAC, RV32GC: `mul` and `mulh`,
/// no packed SIMD), else 0: the one condition for the rv32im int8 row (kernels/rv32im_int8.hpp) and `mulh`'s
/// requantization (kernels/detail/int8_requantize.hpp).
///
/// Example: `#if CTATTN_DETAIL_RV32_MUL` ... `#endif`
#if defined(__riscv) && __riscv_xlen == 32 && defined(__riscv_mul)
#define CTATTN_DETAIL_RV32_MUL 1
#else
#define CTATTN_DETAIL_RV32_MUL 0
#endif

namespace ctattn::detail::kernels {

/// Whether the build targets a microcontroller: a Cortex-M, or a bare-metal 32-bit RISC-V core. Kernels then take
/// their rows in small blocks, so that their buffers stay small on the stack, rather than all at once.
///
/// Example: `if constexpr (ctattn::detail::kernels::microcontroller_target) { ... }`
inline constexpr bool microcontroller_target =
#if (defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M') || \
    (defined(__riscv) && __riscv_xlen == 32 && !defined(__linux__))
    true;
#else
    false;
#endif

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_TARGET_HPP
