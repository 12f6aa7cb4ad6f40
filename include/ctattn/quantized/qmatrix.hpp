// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_QMATRIX_HPP
#define CTATTN_QUANTIZED_QMATRIX_HPP

/// \file
/// `ctattn::qmatrix`: an int8 matrix whose quantization (scale and zero point) is part of its type, and the
/// conversions between it and float matrices: `ctattn::quantize<Q>(x)` and `ctattn::dequantize(q)`.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/quantized/quantization.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

/// A fixed-size, row-major int8 matrix quantized with Q: element (r, c) stands for
/// Q.scale() x (elements[r][c] - Q.zero_point). Dimensions as in `ctattn::matrix` (sizes or named extents).
/// Usually written `ctattn::qmatrix<Rows, Cols, Q>`.
///
/// | member                | meaning                                                        |
/// |-----------------------|----------------------------------------------------------------|
/// | `value_type`          | `std::int8_t`                                                  |
/// | `quantization_type`   | `quantization_constant<Q>`; `quant` is Q itself                |
/// | `row_extent`, `column_extent`, `rows`, `cols`, `size` | as `ctattn::matrix`            |
/// | `elements[r][c]`      | the int8 storage: `qmatrix q{}` zeros it (real -scale x zero_point), `qmatrix q;` leaves it uninitialized, as a C array |
/// | `(r, c)`              | element access                                                 |
/// | `real(r, c)`          | the real value it stands for, as a double                      |
///
/// Rules: the scale is positive and finite (`scale_must_be_positive`), the zero point an int8
/// (`zero_point_must_fit_int8`).
///
/// Example:
/// \code
///   constexpr ctattn::qmatrix<2, 2, ctattn::quantization{0.5, 1}> q{{{1, 3}, {-1, 5}}};
///   static_assert(q.real(0, 1) == 1.0 && q.real(1, 0) == -1.0);
/// \endcode
template <auto Rows, auto Cols, quantization Q>
struct basic_qmatrix {
  static_assert((detail::first_broken<detail::quantization_rules<Q>>::check(), true));
  using value_type = std::int8_t;
  using quantization_type = quantization_constant<Q>;
  static constexpr quantization quant = Q;
  static constexpr auto row_extent = Rows;
  static constexpr auto column_extent = Cols;
  static constexpr std::size_t rows = extent_size(Rows);
  static constexpr std::size_t cols = extent_size(Cols);
  static constexpr std::size_t size = rows * cols;

  // Rationale: no default member initializer. The int8 operations write every element of their result, and a
  // zero-fill first was a `memset` per call (2-4% of the int8 sorter on the Cortex-M4F and the M55); `qmatrix{}`
  // still zeros the elements (aggregate value-initialization), and constant evaluation rejects a result with an
  // element left unwritten.
  std::int8_t elements[rows][cols];

  [[nodiscard]] constexpr std::int8_t& operator()(std::size_t r, std::size_t c) noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr std::int8_t operator()(std::size_t r, std::size_t c) const noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr double real(std::size_t r, std::size_t c) const noexcept {
    return Q.scale() * static_cast<double>(std::int32_t{elements[r][c]} - Q.zero_point);
  }

  friend constexpr bool operator==(const basic_qmatrix&, const basic_qmatrix&) = default;
};

/// `qmatrix<Rows, Cols, Q>`: extents normalized, as `ctattn::matrix`.
template <auto Rows, auto Cols, quantization Q>
using qmatrix = basic_qmatrix<normalize_extent<Rows>, normalize_extent<Cols>, Q>;

namespace detail {
template <typename T>
struct is_basic_qmatrix : std::false_type {};
template <auto R, auto C, quantization Q>
struct is_basic_qmatrix<basic_qmatrix<R, C, Q>> : std::true_type {};

// round(v) with ties away from zero, saturated to [-2^Bits, 2^Bits - 1] (Bits <= 62): exact (no v + 0.5, which
// rounds up the double just below 0.5), for constant evaluation and run time alike. NaN gives 0.
template <int Bits>
constexpr std::int64_t saturated_round_away(double v) noexcept {
  constexpr std::int64_t limit = std::int64_t{1} << Bits;
  if (!(v == v)) return 0;
  const double magnitude = v < 0 ? -v : v;
  if (magnitude >= static_cast<double>(limit)) return v < 0 ? -limit : limit - 1;
  const auto whole = static_cast<std::int64_t>(magnitude);  // truncation: floor of a non-negative value
  const std::int64_t rounded = whole + (magnitude - static_cast<double>(whole) >= 0.5 ? 1 : 0);
  return v < 0 ? -rounded : rounded;
}

// round(v) with ties away from zero, saturated to the int32 range [-2^31, 2^31 - 1]. NaN gives 0.
constexpr std::int64_t round_away(double v) noexcept { return saturated_round_away<31>(v); }

// Whether v is a float32 value: a scale a .tflite file can hold (its scales are float32).
constexpr bool is_float32(double v) noexcept {
  return v == v && v <= 3.4028234663852886e38 && v >= -3.4028234663852886e38 &&
         static_cast<double>(static_cast<float>(v)) == v;
}

// round(x / scale), ties away from zero, saturated to [-2^31, 2^31 - 1] (NaN gives 0): TFLite's quotient. For a
// float32 x and a float32 scale (one a .tflite file holds) the division is in float32, as TFLite's QUANTIZE and
// PerChannelQuantize divide; otherwise (a double x or a scale no float32 holds, which no TFLite model has) exactly
// rounded in double.
// Rationale: float32 division, then rounding, is what TFLite computes: x = -9.0371027f over 1.39032352f is exactly
// -6.5 in float32 (TFLite's q is then -7 before the zero point) but -6.4999... in double.
template <typename T>
constexpr std::int64_t rounded_quotient(T x, double scale) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    if (is_float32(scale)) return round_away(static_cast<double>(x / static_cast<float>(scale)));
  }
  return round_away(static_cast<double>(x) / scale);
}

// The product of two scales as TFLite's BATCH_MATMUL and per-tensor FULLY_CONNECTED take it before dividing by the
// output's scale: in float32 (then widened) when both are float32 values, else exact in double.
constexpr double scale_product(double a, double b) noexcept {
  if (is_float32(a) && is_float32(b)) return static_cast<double>(static_cast<float>(a) * static_cast<float>(b));
  return a * b;
}
}  // namespace detail

/// A quantized matrix (any `qmatrix`).
template <typename M>
concept QuantizedMatrix = detail::is_basic_qmatrix<std::remove_cvref_t<M>>::value;

/// x quantized with Q, TFLite's QUANTIZE bit for bit: q = clamp(round(x / scale) + zero_point, -128, 127), ties
/// away from zero. For float x and a scale that is a float32 value (every scale of a .tflite file) the division is
/// in float32, as TFLite's; otherwise exactly rounded in double. NaN becomes the zero point (real 0); infinities
/// saturate.
///
/// | operand | shape                            |
/// |---------|----------------------------------|
/// | `x`     | R x C, float or double           |
/// | result  | `qmatrix<R, C, Q>` (x's extents) |
///
/// Example:
/// \code
///   constexpr auto q = ctattn::quantize<ctattn::quantization{0.5, 1}>(ctattn::matrix<float, 1, 3>{{{1.0f, -0.25f, 100}}});
///   static_assert(q(0, 0) == 3 && q(0, 1) == 0 && q(0, 2) == 127);   // -0.5 rounds away from zero to -1
/// \endcode
// Rationale: the functions of the quantized tier that return a named result spell out its type. With a deduced
// (`auto`) return type, Clang 14 builds the named result of a function template in a temporary and copies it out
// (no NRVO): a `memcpy` of the whole result per call, 5-10% of a small product on the Cortex-M55.
template <quantization Q, FixedMatrix X>
[[nodiscard]] constexpr auto quantize(const X& x) noexcept -> basic_qmatrix<X::row_extent, X::column_extent, Q> {
  basic_qmatrix<X::row_extent, X::column_extent, Q> q;
  for (std::size_t r = 0; r < X::rows; ++r) {
    for (std::size_t c = 0; c < X::cols; ++c) {
      const std::int64_t v = detail::rounded_quotient(x.elements[r][c], Q.scale()) + Q.zero_point;
      q.elements[r][c] = static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
  }
  return q;
}

/// `quantize<Q>(x)` with the element type named, as the int16 form is (`quantize<Q, std::int16_t>(x)`,
/// ctattn/quantized/q16matrix.hpp): one spelling for code written for either width.
///
/// Example: `const auto x_q = ctattn::quantize<q_x, std::int8_t>(x);   // the same as ctattn::quantize<q_x>(x)`
template <quantization Q, std::same_as<std::int8_t> T, FixedMatrix X>
[[nodiscard]] constexpr auto quantize(const X& x) noexcept -> basic_qmatrix<X::row_extent, X::column_extent, Q> {
  return quantize<Q>(x);
}

/// The float matrix a quantized one stands for: scale x (q - zero_point), computed in double, rounded to float.
///
/// | operand | shape               |
/// |---------|---------------------|
/// | `q`     | `qmatrix<R, C, Q>`  |
/// | result  | `matrix<float, R, C>` (q's extents) |
///
/// Example: `constexpr auto x = ctattn::dequantize(q);`
template <QuantizedMatrix M>
[[nodiscard]] constexpr auto dequantize(const M& q) noexcept -> basic_matrix<float, M::row_extent, M::column_extent> {
  basic_matrix<float, M::row_extent, M::column_extent> x{};
  for (std::size_t r = 0; r < M::rows; ++r) {
    for (std::size_t c = 0; c < M::cols; ++c) x.elements[r][c] = static_cast<float>(q.real(r, c));
  }
  return x;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_QMATRIX_HPP
