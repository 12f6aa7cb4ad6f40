// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_QUANTIZATION_HPP
#define CTATTN_QUANTIZED_QUANTIZATION_HPP

/// \file
/// `ctattn::quantization`: the affine map of int8 inference, real = scale x (q - zero_point), as a value that can
/// be a template argument, so that a quantized matrix carries its scale and zero point in its type.

#include <bit>
#include <concepts>
#include <cstdint>

namespace ctattn {

/// Per-tensor affine quantization: real = scale x (q - zero_point), q an int8. A structural type, so it is a
/// template argument (`ctattn::qmatrix<6, 16, ctattn::quantization{0.05, -3}>`).
///
/// | member             | meaning                                                                 |
/// |--------------------|-------------------------------------------------------------------------|
/// | `scale()`          | the scale, a positive double (a float32 scale is kept exactly)           |
/// | `zero_point`       | the int8 value that stands for real 0                                   |
/// | `scale_bits`       | the scale's bits (how the type stores it)                               |
///
/// Rationale: the scale is kept as the bits of a double because Clang 14 takes no floating-point template
/// arguments; two quantizations are the same type exactly when their scales are the same double.
///
/// Example:
/// \code
///   constexpr ctattn::quantization q{0.05, -3};
///   static_assert(q.scale() == 0.05 && q.zero_point == -3);
/// \endcode
struct quantization {
  std::uint64_t scale_bits = 0;
  std::int32_t zero_point = 0;

  constexpr quantization(double scale, std::int32_t zero = 0) noexcept
      : scale_bits(std::bit_cast<std::uint64_t>(scale)), zero_point(zero) {}

  /// From a float32 scale, as a .tflite file stores it, kept exactly (`quantization{1.39032352f, -84}`): the
  /// operations then take TFLite's float32 steps (docs/quantized.md, "TFLite, bit for bit").
  // Rationale: a constructor of its own (a template, so that an int literal still picks the double one) widens the
  // float explicitly: no -Wdouble-promotion warning where a user copies scales from a .tflite file.
  template <std::same_as<float> F>
  constexpr quantization(F scale, std::int32_t zero = 0) noexcept : quantization(static_cast<double>(scale), zero) {}

  [[nodiscard]] constexpr double scale() const noexcept { return std::bit_cast<double>(scale_bits); }

  friend constexpr bool operator==(const quantization&, const quantization&) = default;
};

/// A quantization as a type, for diagnostics: a broken rule shows `quantization_constant<{scale bits, zero point}>`.
template <quantization Q>
struct quantization_constant {
  static constexpr quantization value = Q;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_QUANTIZATION_HPP
