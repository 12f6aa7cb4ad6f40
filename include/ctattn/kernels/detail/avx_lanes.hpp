// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_AVX_LANES_HPP
#define CTATTN_KERNELS_DETAIL_AVX_LANES_HPP

/// \file
/// Reductions across the 8 float lanes of a ymm register, shared by the AVX2 backend (kernels/avx2.hpp) and the
/// AVX-512 one (kernels/avx512.hpp, on the halves of a zmm register). Empty unless the target has AVX.
///
/// | function              | returns                                   |
/// |-----------------------|-------------------------------------------|
/// | `sum_of_lanes(x)`     | x0 + ... + x7: halves, then pairs, then the last two |
/// | `largest_of_lanes(x)` | the largest lane, in the same order       |
///
/// Example: `ctattn::detail::sum_of_lanes(_mm256_set1_ps(1.0f)) == 8.0f`.

#if defined(__AVX__)

#include <immintrin.h>

namespace ctattn::detail {

/// The sum and the largest of a ymm register's 8 lanes: halves, then pairs, then the last two.
inline float sum_of_lanes(__m256 x) noexcept {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
inline float largest_of_lanes(__m256 x) noexcept {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

}  // namespace ctattn::detail

#endif  // defined(__AVX__)

#endif  // CTATTN_KERNELS_DETAIL_AVX_LANES_HPP
