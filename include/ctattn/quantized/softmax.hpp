// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_SOFTMAX_HPP
#define CTATTN_QUANTIZED_SOFTMAX_HPP

/// \file
/// The int8 softmax of each row, in integers only, with TensorFlow Lite's output quantization (scale 1/256, zero
/// point -128, so that the weights 0 to 1 use the whole int8 range), by one of two methods (`softmax_method`):
///
/// | method                     | each weight                                              | default |
/// |----------------------------|----------------------------------------------------------|---------|
/// | `softmax_method::rounded`  | the exact softmax of the table's terms, rounded to nearest | yes   |
/// | `softmax_method::tflite`   | TFLite's reference kernel's bits (and so CMSIS-NN's `arm_softmax_s8`'s) | |
///
/// Both read the input as its distance d = 0 to 255 from its row's maximum, through a table of 256 int32 terms the
/// compiler makes for the input's quantization (1 KiB of flash each), then sum the row's terms, take one reciprocal
/// per row and give each weight with a multiply and a shift: integers only after the table, so constant evaluation
/// and every target give the same bits.
/// - `rounded`: the table holds e^(-scale d) in Q20 (2^20 stands for 1), from ctattn::math::exp rounded to nearest;
///   each weight is round(256 term / sum) - 128, the sum in int64. Within one output step of the exact softmax of
///   the int8 input (tests/static/quantized_test.cpp).
/// - `tflite`: the table holds gemmlowp's fixed-point e^(-scale d) (`math::exp_on_negative_values<5>` of d scaled
///   by TFLite's input multiplier, 0 for a d beyond its `diff_min`), which TFLite computes for each element twice;
///   the sum in Q12.19, the reciprocal by three Newton steps (`math::reciprocal_of_sum`), each weight rounded from
///   it. The same bits as TFLite's (beta 1), so that a port checked against a `.tflite` model matches it entry for
///   entry. The two methods differ on about one row in four thousand, by one step in one weight near a rounding tie.
///
/// Rationale: `rounded` stays the default: its bound (within one output step of the exact softmax) holds by
/// construction, the Helium and AVX-512 backends have vector kernels for it, and models quantized before keep their
/// bits; `tflite` is there for ports that must match a `.tflite` model bit for bit (docs/quantized.md, "The softmax:
/// two methods").

#include <array>
#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/exp.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/quantization.hpp"

namespace ctattn {

/// The quantization of int8 softmax outputs (TFLite's): weight w is round(256 w) - 128.
inline constexpr quantization softmax_output_quantization{1.0 / 256.0, -128};

/// How the int8 softmax computes its weights (this header's table): `rounded`, ctattn's, is the default; `tflite`
/// gives TFLite's reference bits.
///
/// Example: `constexpr auto w = ctattn::softmax_rows<ctattn::softmax_method::tflite>(scores_q);`
enum class softmax_method { rounded, tflite };

namespace detail {
/// e^(-Q.scale() d) in Q20 for d = 0 to 255, rounded to nearest (ties away from zero).
template <quantization Q>
inline constexpr std::array<std::int32_t, 256> softmax_exp_table = [] {
  std::array<std::int32_t, 256> table{};
  for (std::size_t d = 0; d < table.size(); ++d) {
    table[d] = static_cast<std::int32_t>(round_away(math::exp(-Q.scale() * static_cast<double>(d)) * 1048576.0));
  }
  return table;
}();

/// TFLite's e^(-Q.scale() d) for d = 0 to 255 in Q0.31, as its int8 softmax computes each element (beta 1):
/// the input multiplier from scale 2^26 (PreprocessSoftmaxScaling, 5 integer bits), the difference -d times it by
/// `math::multiply_by_quantized_multiplier` (for TFLite's left shift, its MultiplyByQuantizedMultiplierGreaterThanOne:
/// the shift, then `saturating_rounding_doubling_high_mul`), then `math::exp_on_negative_values<5>`; 0 where -d is
/// below diff_min = -floor(31 2^26 / 2^shift) (CalculateInputRadius), which TFLite leaves out of the row.
// Rationale: TFLite's Prepare refuses an input scale of 2^-26 or less (its multiplier must exceed 1); ctattn still
// makes a table there, with the multiplier's shift as it comes (a right shift below 2^-27): the same real product.
template <quantization Q>
inline constexpr std::array<std::int32_t, 256> tflite_softmax_exp_table = [] {
  constexpr int integer_bits = 5;
  const double cap = static_cast<double>((std::int64_t{1} << 31) - 1);
  const double real = Q.scale() * static_cast<double>(std::int64_t{1} << (31 - integer_bits));
  const math::quantized_multiplier m = math::quantize_multiplier(real < cap ? real : cap);
  const int shift = m.shift > 0 ? m.shift : 0;
  const double radius = 31.0 * static_cast<double>(std::int64_t{1} << (31 - integer_bits)) /
                        static_cast<double>(std::int64_t{1} << shift);
  const auto diff_min = -static_cast<std::int64_t>(radius);  // radius > 0: the cast is its floor
  std::array<std::int32_t, 256> table{};
  for (std::size_t d = 0; d < table.size(); ++d) {
    const std::int32_t diff = -static_cast<std::int32_t>(d);
    if (diff < diff_min) continue;
    table[d] = math::exp_on_negative_values<integer_bits>(math::multiply_by_quantized_multiplier(diff, m));
  }
  return table;
}();

/// The table and the kernel's per-row arithmetic of a `softmax_method`, for the input quantization Q.
template <softmax_method Method, quantization Q>
struct softmax_kernel {
  using method = kernels::rounded_softmax;
  static constexpr const auto& table = softmax_exp_table<Q>;
};
template <quantization Q>
struct softmax_kernel<softmax_method::tflite, Q> {
  using method = kernels::tflite_softmax;
  static constexpr const auto& table = tflite_softmax_exp_table<Q>;
};
}  // namespace detail

/// The softmax of each row of an int8 matrix, as int8 weights quantized with `softmax_output_quantization`:
/// w_j = e^(x_j) / sum_k e^(x_k) over the real values the row stands for, by `Method` (this header's table).
///
/// | operand | shape                                        |
/// |---------|----------------------------------------------|
/// | `x`     | `qmatrix<R, C, Q>`                           |
/// | result  | `qmatrix<R, C, softmax_output_quantization>` |
///
/// Example:
/// \code
///   constexpr auto w = ctattn::softmax_rows(scores_q);   // w(i, j) + 128 is 256 times the weight, rounded
///   constexpr auto w_tflite = ctattn::softmax_rows<ctattn::softmax_method::tflite>(scores_q);   // TFLite's bits
/// \endcode
template <softmax_method Method = softmax_method::rounded, QuantizedMatrix X>
[[nodiscard]] constexpr auto softmax_rows(const X& x) noexcept
    -> basic_qmatrix<X::row_extent, X::column_extent, softmax_output_quantization> {
  using kernel = detail::softmax_kernel<Method, X::quant>;
  basic_qmatrix<X::row_extent, X::column_extent, softmax_output_quantization> w;
  for (std::size_t r = 0; r < X::rows; ++r) {
    detail::kernels::int8_softmax_row<typename kernel::method>(x.elements[r], w.elements[r], 0, X::cols,
                                                               kernel::table.data(), nullptr);
  }
  return w;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_SOFTMAX_HPP
