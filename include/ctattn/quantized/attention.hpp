#ifndef CTATTN_QUANTIZED_ATTENTION_HPP
#define CTATTN_QUANTIZED_ATTENTION_HPP

/// \file
/// Scaled dot-product attention in int8: softmax(Q K^T / sqrt(d_k)) V with int8 operands, int32 sums and the
/// fixed-point requantizations of ctattn/math/fixed_point.hpp, the scale 1 / sqrt(d_k) folded by the compiler into
/// the scores' multiplier. Integers only, so constant evaluation and every target give the same bits.

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/softmax.hpp"

namespace ctattn {

namespace detail {
template <typename Q, typename K, typename V, quantization Scores, quantization Out>
using quantized_attention_rules =
    rule_list<shape_error::inner_dimensions_must_match<op::quantized_attention, dim_of<Q::column_extent>,
                                                       dim_of<K::column_extent>>,
              shape_error::rows_must_match<op::quantized_attention, dim_of<K::row_extent>, dim_of<V::row_extent>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_attention, count<Q::cols>, count<33025>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_attention, count<K::rows>, count<33025>>,
              quantization_rules<Scores>, quantization_rules<Out>>;
}  // namespace detail

/// softmax(Q K^T / sqrt(d_k)) V in int8:
///   1. scores: sum_k (q - q_zero)(k - k_zero) in int32, requantized to `Scores` with the multiplier
///      q_scale k_scale / (sqrt(d_k) scores_scale);
///   2. weights: `softmax_rows` of the scores (scale 1/256, zero point -128);
///   3. output: sum_j (w + 128)(v - v_zero) in int32, requantized to `Out` with (1/256) v_scale / out_scale.
///
/// | operand | shape                     |
/// |---------|---------------------------|
/// | `q`     | `qmatrix<n_q, d_k, QQ>`   |
/// | `k`     | `qmatrix<n_kv, d_k, QK>`  |
/// | `v`     | `qmatrix<n_kv, d_v, QV>`  |
/// | result  | `qmatrix<n_q, d_v, Out>`  |
///
/// Rules: q and k have one width d_k (`inner_dimensions_must_match`, names included); k and v have one number of
/// rows (`rows_must_match`); the sums fit an int32; `Scores` and `Out` are quantizations. `Scores` should cover the
/// range of Q K^T / sqrt(d_k) (calibrate it like any activation): scores beyond it saturate, and the softmax sees
/// the saturated values.
///
/// Example:
/// \code
///   constexpr auto context = ctattn::scaled_dot_product_attention<q_scores, q_context>(q_q, k_q, v_q);
/// \endcode
template <quantization Scores, quantization Out, QuantizedMatrix Q, QuantizedMatrix K, QuantizedMatrix V>
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v) noexcept {
  basic_qmatrix<Q::row_extent, V::column_extent, Out> out{};
  if constexpr (detail::first_broken<detail::quantized_attention_rules<Q, K, V, Scores, Out>>::check()) {
    constexpr math::quantized_multiplier score_multiplier = math::quantize_multiplier(
        Q::quant.scale() * K::quant.scale() / (math::sqrt(static_cast<double>(Q::cols)) * Scores.scale()));
    constexpr math::quantized_multiplier output_multiplier =
        math::quantize_multiplier(softmax_output_quantization.scale() * V::quant.scale() / Out.scale());
    basic_qmatrix<Q::row_extent, K::row_extent, Scores> scores{};
    for (std::size_t i = 0; i < Q::rows; ++i) {
      for (std::size_t j = 0; j < K::rows; ++j) {
        std::int32_t sum = 0;
        for (std::size_t c = 0; c < Q::cols; ++c) {
          sum += (std::int32_t{q.elements[i][c]} - Q::quant.zero_point) *
                 (std::int32_t{k.elements[j][c]} - K::quant.zero_point);
        }
        scores.elements[i][j] = detail::kernels::requantize(sum, score_multiplier, Scores.zero_point);
      }
    }
    const auto weights = softmax_rows(scores);
    std::int32_t sums[Q::rows][V::cols]{};
    for (std::size_t i = 0; i < Q::rows; ++i) {
      for (std::size_t c = 0; c < V::cols; ++c) {
        std::int32_t sum = 0;
        for (std::size_t j = 0; j < K::rows; ++j) {
          sum += (std::int32_t{weights.elements[i][j]} - softmax_output_quantization.zero_point) *
                 (std::int32_t{v.elements[j][c]} - V::quant.zero_point);
        }
        sums[i][c] = sum;
      }
    }
    detail::kernels::requantize(sums, output_multiplier, Out.zero_point, out.elements);
  }
  return out;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ATTENTION_HPP
