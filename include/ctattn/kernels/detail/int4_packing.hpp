// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT4_PACKING_HPP
#define CTATTN_KERNELS_DETAIL_INT4_PACKING_HPP

/// \file
/// TFLite's dense int4 packing, read one value at a time: what kernels/int4.hpp and the rows that unpack int4
/// weights themselves (kernels/helium_int8.hpp's tail) share.
///
/// | entity                     | what                                                         |
/// |----------------------------|--------------------------------------------------------------|
/// | `int4_packed_bytes<N, K>`  | (N K + 1) / 2 bytes                                          |
/// | `int4_value(packed, i)`    | value i, in [-8, 7]                                          |

#include <cstddef>
#include <cstdint>

#include "ctattn/detail/config.hpp"

namespace ctattn::detail::kernels {

/// The bytes of an N x K int4 packing: two values a byte, the last byte's high nibble unused when N K is odd.
template <std::size_t N, std::size_t K>
inline constexpr std::size_t int4_packed_bytes = (N * K + 1) / 2;

/// Value i of a dense int4 packing: the low nibble of byte i / 2 for even i, the high one for odd i, sign-extended.
///
/// Example: `const std::uint8_t p[1]{0x8F}; // int4_value(p, 0) == -1, int4_value(p, 1) == -8`
[[nodiscard]] CTATTN_ALWAYS_INLINE constexpr std::int8_t int4_value(const std::uint8_t* packed,
                                                                    std::size_t i) noexcept {
  const unsigned byte = packed[i / 2];
  const unsigned nibble = (i % 2 == 0 ? byte : byte >> 4) & 0xFu;
  return static_cast<std::int8_t>(static_cast<int>(nibble ^ 0x8u) - 8);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_INT4_PACKING_HPP
