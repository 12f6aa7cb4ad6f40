// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_SOFTMAX_HPP
#define CTATTN_QUANTIZED_SOFTMAX_HPP

/// \file
/// The int8 softmax of each row, in integers only, with TensorFlow Lite's output quantization (scale 1/256, zero
/// point -128, so that the weights 0 to 1 use the whole int8 range).
///
/// How: the input's int8 values differ from their row's maximum by d = 0 to 255, and e^(-scale d) for each d is a
/// table of 256 integers in Q20 (2^20 stands for 1), computed by the compiler from ctattn::math::exp and rounded to
/// nearest. A row's weights are its table entries divided by their int64 sum, times 256, rounded to nearest, less
/// 128. Integers only after the table, so constant evaluation and every target give the same bits.
///
/// Rationale: TFLite computes the same quantity with gemmlowp's fixed-point exp; a table for the input's own scale
/// is as exact (1/2^20 of the largest term, against an output step of 1/256), costs 1 KiB of flash per input
/// quantization, and is what CMSIS-NN's newer softmax kernels do. The results are not TFLite's bit for bit, but
/// have its quantization and are within one output step of the exact softmax of the int8 input
/// (tests/static/quantized_test.cpp).

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
}  // namespace detail

/// The softmax of each row of an int8 matrix, as int8 weights quantized with `softmax_output_quantization`:
/// w_j = e^(x_j) / sum_k e^(x_k) over the real values the row stands for.
///
/// | operand | shape                                        |
/// |---------|----------------------------------------------|
/// | `x`     | `qmatrix<R, C, Q>`                           |
/// | result  | `qmatrix<R, C, softmax_output_quantization>` |
///
/// Example:
/// \code
///   constexpr auto w = ctattn::softmax_rows(scores_q);   // w(i, j) + 128 is 256 times the weight, rounded
/// \endcode
template <QuantizedMatrix X>
[[nodiscard]] constexpr auto softmax_rows(const X& x) noexcept
    -> basic_qmatrix<X::row_extent, X::column_extent, softmax_output_quantization> {
  constexpr const auto& table = detail::softmax_exp_table<X::quant>;
  basic_qmatrix<X::row_extent, X::column_extent, softmax_output_quantization> w;
  for (std::size_t r = 0; r < X::rows; ++r) {
    detail::kernels::int8_softmax_row(x.elements[r], w.elements[r], 0, X::cols, table.data(), nullptr);
  }
  return w;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_SOFTMAX_HPP
