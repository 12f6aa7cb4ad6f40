// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_ARM_DSP_HPP
#define CTATTN_KERNELS_ARM_DSP_HPP

/// \file
/// The Cortex-M DSP extension's int8 backend (Cortex-M4, M7, M33 with DSP, M55): the int8 operations of
/// kernels/detail/int8_simd.hpp on 4 terms per step in one 32-bit register, through the ACLE intrinsics of
/// <arm_acle.h>:
///
/// | step                              | instruction | what it does                                               |
/// |-----------------------------------|-------------|------------------------------------------------------------|
/// | load 4 int8                       | `ldr`       | one word (unaligned loads are allowed on these cores)      |
/// | bytes 0 and 2, less the zero point| `sxtab16`   | sign-extends two bytes into 16-bit halves and adds -zero   |
/// | bytes 1 and 3, less the zero point| `sxtab16` with `ror #8` | the same for the odd bytes                     |
/// | multiply and add                  | `smlad`     | acc + x.lo y.lo + x.hi y.hi, two products per instruction  |
///
/// So 4 terms cost 2 loads, 4 extensions and 2 multiply-adds, against 4 loads each of a and b, 8 extensions and 4
/// multiply-adds in the scalar loop. Each byte less its zero point lies in [-255, 255], which a 16-bit half holds.
///
/// Built only where the compiler defines `__ARM_FEATURE_DSP` (-mcpu=cortex-m4, cortex-m7, cortex-m33, cortex-m55);
/// kernels/int8.hpp selects it where no wider backend (Helium) is selected. Tested on the target by the firmware
/// boards (docs/firmware.md): every int8 image compares its results with the compiler's, bit for bit.
///
/// Example: `ctattn::detail::arm_dsp_int8_ops::total(ctattn::detail::arm_dsp_int8_ops::zero()) == 0`.

#include <cstddef>

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstdint>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int8_ops {
  static constexpr std::size_t step = 4;
  static constexpr std::size_t rows_per_pass = 2;  // kernels/detail/int8_simd.hpp says why
  /// -zero_point in both 16-bit halves.
  using offset = std::uint32_t;
  /// The even bytes (0, 2) and the odd bytes (1, 3), each widened to 16-bit halves less the zero point.
  struct widened {
    std::int32_t even;
    std::int32_t odd;
  };
  using accumulator = std::int32_t;

  static offset make_offset(std::int32_t zero_point) noexcept {
    return (static_cast<std::uint32_t>(-zero_point) & 0xFFFFu) * 0x10001u;
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, sizeof word);
    const auto offsets = std::bit_cast<std::int32_t>(zero_point);
    return {__sxtab16(offsets, std::bit_cast<std::int32_t>(word)),
            __sxtab16(offsets, std::bit_cast<std::int32_t>(std::rotr(word, 8)))};
  }
  static accumulator zero() noexcept { return 0; }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return __smlad(x.odd, y.odd, __smlad(x.even, y.even, sum));
  }
  static std::int32_t total(accumulator sum) noexcept { return sum; }
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_HPP
