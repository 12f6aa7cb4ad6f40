// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_TARGET_HPP
#define CTATTN_KERNELS_DETAIL_TARGET_HPP

/// \file
/// What kind of machine the build targets, where a kernel's blocking depends on it: one definition for every kernel.

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
