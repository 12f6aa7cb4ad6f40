// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_EXP_CONSTANTS_HPP
#define CTATTN_KERNELS_DETAIL_EXP_CONSTANTS_HPP

/// \file
/// The constants of every backend's vector exp (float): e^x = 2^n e^r, n = round(x log2 e), r = x - n ln 2 with
/// ln 2 split so that n ln2_high is exact for |n| < 2^8, and e^r = 1 + r + r^2/2! + ... + r^7/7!. On
/// |r| <= ln2/2 the truncated term is below 6e-9 of the result, so the roundings decide: the result is within
/// 2 ulp of e^x (tests/backend/ checks it against e^x in double over the softmax's range).

namespace ctattn::detail::exp_constants {

inline constexpr float log2e = 1.44269504088896341f;
inline constexpr float ln2_high = 0.693359375f;    // 355/512: 9 significant bits
inline constexpr float ln2_low = -2.12194440e-4f;  // ln 2 - ln2_high
inline constexpr float c2 = 1.0f / 2.0f;
inline constexpr float c3 = 1.0f / 6.0f;
inline constexpr float c4 = 1.0f / 24.0f;
inline constexpr float c5 = 1.0f / 120.0f;
inline constexpr float c6 = 1.0f / 720.0f;
inline constexpr float c7 = 1.0f / 5040.0f;
// Below this, e^x is under the smallest normal float (2^-126): the vector exp gives 0 (the exact one a subnormal
// under 1.2e-38, which no softmax weight can tell from 0 once divided by a sum >= 1).
inline constexpr float lowest = -87.33654f;

}  // namespace ctattn::detail::exp_constants

#endif  // CTATTN_KERNELS_DETAIL_EXP_CONSTANTS_HPP
