#ifndef CTATTN_KERNELS_INT8_HPP
#define CTATTN_KERNELS_INT8_HPP

/// \file
/// The int8 kernels: integer sums, so every order gives the same result, and constant evaluation, the scalar loops
/// and any SIMD form agree bit for bit. kernels/dispatch.hpp is where a backend's form will be chosen.
///
/// | kernel                                         | computes                                             |
/// |------------------------------------------------|------------------------------------------------------|
/// | `int8_product(c, a, b, a_zero, b_zero)`        | c[i][j] = sum_k (a[i][k] - a_zero) (b[k][j] - b_zero), in int32 |
/// | `int8_product_transposed(c, a, b, a_zero)`     | c[i][j] = sum_k (a[i][k] - a_zero) b[j][k], in int32 |
/// | `requantize(c, multiplier, zero, out)`         | out = clamp(c times the multiplier, rounded, + zero, -128, 127) |
///
/// Example:
/// \code
///   std::int32_t c[1][1]{}; const std::int8_t a[1][2]{{1, 2}}, b[2][1]{{3}, {4}};
///   ctattn::detail::kernels::int8_product(c, a, b, 0, 0);   // {{11}}
/// \endcode

#include <cstddef>
#include <cstdint>

#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail::kernels {

/// c = (a - a_zero)(b - b_zero) in int32 (the rules keep K small enough that no sum overflows).
template <std::size_t M, std::size_t K, std::size_t N>
constexpr void int8_product(std::int32_t (&c)[M][N], const std::int8_t (&a)[M][K], const std::int8_t (&b)[K][N],
                            std::int32_t a_zero, std::int32_t b_zero) noexcept {
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      std::int32_t sum = 0;
      for (std::size_t k = 0; k < K; ++k) sum += (std::int32_t{a[i][k]} - a_zero) * (std::int32_t{b[k][j]} - b_zero);
      c[i][j] = sum;
    }
  }
}

/// c = (a - a_zero) b^T in int32, b given as N rows of K (PyTorch's out x in weights, zero point 0).
template <std::size_t M, std::size_t K, std::size_t N>
constexpr void int8_product_transposed(std::int32_t (&c)[M][N], const std::int8_t (&a)[M][K],
                                       const std::int8_t (&b)[N][K], std::int32_t a_zero) noexcept {
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      std::int32_t sum = 0;
      for (std::size_t k = 0; k < K; ++k) sum += (std::int32_t{a[i][k]} - a_zero) * std::int32_t{b[j][k]};
      c[i][j] = sum;
    }
  }
}

/// One int32 accumulator to int8: multiply_by_quantized_multiplier, plus the output's zero point, clamped.
constexpr std::int8_t requantize(std::int32_t accumulator, math::quantized_multiplier multiplier,
                                 std::int32_t zero) noexcept {
  std::int32_t v = math::multiply_by_quantized_multiplier(accumulator, multiplier);
  // Rationale: the zero point is added after clamping v to what cannot overflow (|v| may be near 2^31).
  v = v < -256 ? -256 : (v > 256 ? 256 : v);
  v += zero;
  return static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

/// out = requantize(c) for every element.
template <std::size_t M, std::size_t N>
constexpr void requantize(const std::int32_t (&c)[M][N], math::quantized_multiplier multiplier, std::int32_t zero,
                          std::int8_t (&out)[M][N]) noexcept {
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) out[i][j] = requantize(c[i][j], multiplier, zero);
  }
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_INT8_HPP
