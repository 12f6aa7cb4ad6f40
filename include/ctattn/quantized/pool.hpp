// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_POOL_HPP
#define CTATTN_QUANTIZED_POOL_HPP

/// \file
/// Pooling in int8 (the float layers are in ctattn/layers/pool.hpp): the class token's row, which keeps its
/// quantization, and the mean of the rows, requantized as TFLite's MEAN does it (the sum of the offsets from the
/// zero point, times one multiplier for the scales and the count).
///
/// | entity                        | what                                             |
/// |-------------------------------|--------------------------------------------------|
/// | `qclass_token_pool<Q>`        | row 0 of an int8 matrix quantized with Q          |
/// | `qmean_pool<QIn, QOut>`       | the mean of the rows, quantized with QOut         |

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

/// The class token's row of quantized rows, in their quantization Q: int8 rows, or int16 ones (`Value`
/// `std::int16_t`, a 16x8 model's).
///
/// Example: `const auto pooled = ctattn::qclass_token_pool<q>{}.forward(tokens_q);   // qmatrix<1, D, q>`
template <quantization Q, detail::quantized_value Value = std::int8_t>
struct qclass_token_pool {
  using value_type = Value;
  static constexpr bool int16 = std::same_as<Value, std::int16_t>;
  static constexpr quantization output_quantization = Q;

  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    using input_rule =
        shape_error::input_quantization_must_match_layer<op::quantized_front_end, quantization_constant<X::quant>,
                                                         quantization_constant<Q>>;
    static_assert((input_rule::check(), true));
    detail::basic_quantized_matrix<Value, std::size_t{1}, X::column_extent, Q> y;
    for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] = x.elements[0][j];
    return y;
  }

  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(detail::basic_quantized_matrix<Value, std::size_t{1}, X::column_extent, Q>), 0, 0};
  }
  friend constexpr bool operator==(const qclass_token_pool&, const qclass_token_pool&) = default;
};

/// The mean of int8 rows quantized QIn, quantized with QOut: for each column, the sum over the n rows of
/// (x - QIn's zero point) in int32, times the multiplier of QIn.scale / (n QOut.scale), plus QOut's zero point.
///
/// Example: `const auto pooled = ctattn::qmean_pool<q_in, q_out>{}.forward(tokens_q);   // qmatrix<1, D, q_out>`
template <quantization QIn, quantization QOut>
struct qmean_pool {
  static constexpr quantization output_quantization = QOut;

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    using input_rule =
        shape_error::input_quantization_must_match_layer<op::quantized_front_end, quantization_constant<X::quant>,
                                                         quantization_constant<QIn>>;
    static_assert((input_rule::check(), true));
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(QIn.scale() / (static_cast<double>(X::rows) * QOut.scale()));
    basic_qmatrix<std::size_t{1}, X::column_extent, QOut> y;
    for (std::size_t j = 0; j < X::cols; ++j) {
      std::int32_t sum = 0;
      for (std::size_t r = 0; r < X::rows; ++r) sum += std::int32_t{x.elements[r][j]} - QIn.zero_point;
      y.elements[0][j] = detail::kernels::requantize(sum, multiplier, QOut.zero_point);
    }
    return y;
  }

  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(basic_qmatrix<std::size_t{1}, X::column_extent, QOut>), 0, 0};
  }
  friend constexpr bool operator==(const qmean_pool&, const qmean_pool&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_POOL_HPP
