// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_CALIBRATE_HPP
#define CTATTN_QUANTIZED_CALIBRATE_HPP

/// \file
/// Choosing a quantization at compile time: from the range of calibration data (activations, asymmetric) or from
/// the largest magnitude (weights, symmetric, zero point 0), as TensorFlow Lite's converter chooses them.
///
/// | function                                   | gives                                                        |
/// |--------------------------------------------|--------------------------------------------------------------|
/// | `observed_range(xs...)`                    | the smallest and largest element of the matrices `xs`        |
/// | `quantization_for_range(lo, hi)`           | scale (hi - lo) / 255 over [lo, hi] widened to contain 0; the zero point that maps lo to -128 |
/// | `quantization_for_range(range, format)` | the same for int8; for int16 (16x8) scale max(|lo|, |hi|) / 32767, zero point 0 |
/// | `symmetric_quantization(largest)`          | scale largest / 127, zero point 0                            |
/// | `largest_magnitude(xs...)`                 | the largest magnitude among the elements of `xs`             |
/// | `range_at(table, name)`                    | the range named `name` in a generated ranges header (ctattn/quantized/ranges.hpp) |
///
/// Example:
/// \code
///   constexpr auto q = ctattn::quantization_for_range(-1.0, 3.0);   // scale 4/255, zero point -64
///   constexpr auto x_q = ctattn::quantize<q>(x);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ctattn/detail/config.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/quantization.hpp"
#include "ctattn/quantized/weights.hpp"

namespace ctattn {

/// The smallest and the largest value seen.
struct value_range {
  double lo = 0.0;
  double hi = 0.0;
  friend constexpr bool operator==(const value_range&, const value_range&) = default;
};

namespace detail {
// Widens `range` (empty while `seen` is false) by the elements of one matrix.
template <typename X>
constexpr void widen(value_range& range, bool& seen, const X& m) noexcept {
  for (std::size_t r = 0; r < X::rows; ++r) {
    for (std::size_t col = 0; col < X::cols; ++col) {
      const double element_value = static_cast<double>(m.elements[r][col]);
      if (!(element_value == element_value)) continue;
      if (!seen || element_value < range.lo) range.lo = element_value;
      if (!seen || element_value > range.hi) range.hi = element_value;
      seen = true;
    }
  }
}
}  // namespace detail

/// The range of every element of the matrices `xs` (calibration data: a layer's inputs over a calibration set).
/// NaN elements are skipped.
///
/// Example: `constexpr auto r = ctattn::observed_range(batch0, batch1);   // r.lo, r.hi`
template <FixedMatrix... Xs>
[[nodiscard]] constexpr value_range observed_range(const Xs&... xs) noexcept {
  value_range range{};
  bool seen = false;
  (detail::widen(range, seen, xs), ...);
  return range;
}

/// The asymmetric int8 quantization of [lo, hi], TFLite's choice for activations: the range is widened to contain 0
/// (so that real 0, padding and ReLU's floor, is exact), scale = (hi - lo) / 255, and the zero point
/// round(-128 - lo / scale) (ties away from zero), clamped to [-128, 127]. An empty range (lo = hi = 0) gets scale 1.
///
/// Example: `static_assert(ctattn::quantization_for_range(-1.0, 3.0).zero_point == -64);`
[[nodiscard]] constexpr quantization quantization_for_range(double lo, double hi) noexcept {
  lo = lo < 0.0 ? lo : 0.0;
  hi = hi > 0.0 ? hi : 0.0;
  if (!(hi > lo)) return quantization{1.0, 0};
  const double scale = (hi - lo) / 255.0;
  const std::int64_t zero = detail::round_away(-128.0 - lo / scale);
  return quantization{scale, static_cast<std::int32_t>(zero < -128 ? -128 : (zero > 127 ? 127 : zero))};
}

/// \copydoc quantization_for_range(double, double)
[[nodiscard]] constexpr quantization quantization_for_range(value_range r) noexcept {
  return quantization_for_range(r.lo, r.hi);
}

/// The quantization of [lo, hi] for activations of the given width: int8 as `quantization_for_range(lo, hi)`;
/// int16 as TFLite's 16x8 mode quantizes an activation, symmetric: scale max(|lo|, |hi|) / 32767, zero point 0, so
/// that -32767 to 32767 are used (an empty range around 0: scale 1).
///
/// Example: `static_assert(ctattn::quantization_for_range({-2.0, 1.0}, ctattn::activation_format::int16).scale() == 2.0 / 32767);`
[[nodiscard]] constexpr quantization quantization_for_range(value_range r, activation_format format) noexcept {
  if (format == activation_format::int8) return quantization_for_range(r.lo, r.hi);
  const double largest = -r.lo > r.hi ? -r.lo : r.hi;
  return largest > 0.0 ? quantization{largest / 32767.0, 0} : quantization{1.0, 0};
}

/// The symmetric int8 quantization of [-largest, largest], TFLite's choice for weights: scale largest / 127, zero
/// point 0, so that -127 to 127 are used and the product needs no zero-point terms. largest = 0 gets scale 1.
///
/// Example: `static_assert(ctattn::symmetric_quantization(2.54).scale() == 0.02);`
[[nodiscard]] constexpr quantization symmetric_quantization(double largest) noexcept {
  largest = largest < 0.0 ? -largest : largest;
  return largest > 0.0 ? quantization{largest / 127.0, 0} : quantization{1.0, 0};
}

/// The largest magnitude among the elements of `xs` (for `symmetric_quantization`).
template <FixedMatrix... Xs>
[[nodiscard]] constexpr double largest_magnitude(const Xs&... xs) noexcept {
  const value_range range = observed_range(xs...);
  return -range.lo > range.hi ? -range.lo : range.hi;
}

/// One named range of a generated ranges header.
///
/// Example: `inline constexpr ctattn::named_range ranges[] = {{"norm", {-2.5, 3.0}}, {"head", {-9.0, 11.5}}};`
struct named_range {
  std::string_view name;
  value_range range;
};

namespace detail {
// Not constexpr on purpose, as precondition_failed: reached in a constant expression, it makes the expression
// non-constant, and the compilers' first error names this function, whose name says what is wrong and what to do.
inline void ranges_table_lacks_this_point_record_it_with_record_ranges() noexcept { precondition_failed(); }
}  // namespace detail

/// The range named `name` in `table`; a name the table lacks is a contract violation (a compile error in a constant
/// expression, naming `ranges_table_lacks_this_point_record_it_with_record_ranges`: the ranges header is older than
/// the model, or the name is misspelled).
///
/// Example: `constexpr auto q_norm = ctattn::quantization_for_range(ctattn::range_at(toy::sorter_ranges, "norm"));`
template <typename Table>
[[nodiscard]] constexpr value_range range_at(const Table& table, std::string_view name) noexcept {
  for (const named_range& entry : table) {
    if (entry.name == name) return entry.range;
  }
  detail::ranges_table_lacks_this_point_record_it_with_record_ranges();
  return {};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_CALIBRATE_HPP
