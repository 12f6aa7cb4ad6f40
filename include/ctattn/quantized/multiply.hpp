// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_MULTIPLY_HPP
#define CTATTN_QUANTIZED_MULTIPLY_HPP

/// \file
/// The product of two int8 matrices into a third quantization, as int8 inference computes it: the sum of
/// (a - a_zero)(b - b_zero) in int32, then requantized by the fixed-point multiplier a_scale b_scale / out_scale
/// (ctattn/math/fixed_point.hpp), derived by the compiler.

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/int8.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

// Rationale: after the int8 headers, so that an int8 rule's diagnostic names the same short chain of includes as
// before the int16 tier (Clang prints each level above its first error line, and a compile-fail test reads the
// first 16 lines).
#include "ctattn/quantized/q16matrix.hpp"

namespace ctattn {

namespace detail {
/// The rules of `multiply<Out>(a, b)` for quantized operands: a's columns are b's rows, the sum fits an int32, and
/// the output's quantization is one.
template <typename A, typename B, quantization Out>
using quantized_multiply_rules = rule_list<
    shape_error::inner_dimensions_must_match<op::quantized_multiply, dim_of<A::column_extent>, dim_of<B::row_extent>>,
    shape_error::int8_accumulator_must_not_overflow<op::quantized_multiply, count<A::cols>, count<33025>>,
    quantization_rules<Out>>;
}  // namespace detail

/// The int8 product a b, quantized with `Out`: out = clamp(round(sum_k (a - a_zero)(b - b_zero) x a_scale b_scale /
/// out_scale) + out_zero, -128, 127), the sum exact in int32 and the scaling TFLite's fixed-point
/// requantization: TFLite's BATCH_MATMUL bit for bit, whose multiplier takes a_scale b_scale in float32 when both
/// are float32 values (as a .tflite file's are), then divides in double. The same bits in constant evaluation and at
/// run time, on every target.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `a`     | `qmatrix<M, K, QA>`                |
/// | `b`     | `qmatrix<K, N, QB>`                |
/// | result  | `qmatrix<M, N, Out>`               |
///
/// Rules: K matches (`inner_dimensions_must_match`, names included); K <= 33025
/// (`int8_accumulator_must_not_overflow`); Out is a quantization (`scale_must_be_positive`,
/// `zero_point_must_fit_int8`).
///
/// Example:
/// \code
///   constexpr auto c = ctattn::multiply<ctattn::quantization{0.25, 0}>(qa, qb);
/// \endcode
/// The transpose of an int8 matrix as `multiply` reads it: a view of `of` (no copy), of's columns as rows.
/// `multiply<Out>(q, transpose(k))` computes Q K^T straight from K's rows, the layout the kernels read.
///
/// | member / operand | shape                       |
/// |------------------|-----------------------------|
/// | `of`             | `qmatrix<R, C, Q>` (or `q16matrix<R, C, Q>`) |
/// | the view         | C x R, quantized with Q     |
///
/// Example: `constexpr auto scores = ctattn::multiply<q_scores>(q, ctattn::transpose(k));`
template <typename M>
  requires(QuantizedMatrix<M> || Quantized16Matrix<M>)
struct qmatrix_transpose {
  static constexpr quantization quant = M::quant;
  static constexpr auto row_extent = M::column_extent;
  static constexpr auto column_extent = M::row_extent;
  static constexpr std::size_t rows = M::cols;
  static constexpr std::size_t cols = M::rows;
  const M& of;
};

/// The transpose of an int8 (or int16) matrix as a view (`qmatrix_transpose`), for `multiply`.
///
/// Example: `const auto scores = ctattn::multiply<q_scores>(q, ctattn::transpose(k));`
template <typename M>
  requires(QuantizedMatrix<M> || Quantized16Matrix<M>)
[[nodiscard]] constexpr qmatrix_transpose<M> transpose(const M& m) noexcept {
  return {m};
}

/// The int8 product a b^T, b given by its transpose view (`transpose(b)`): `multiply<Out>(a, b)`'s result and
/// rules, read from b's rows without a copy.
///
/// | operand        | shape                   |
/// |----------------|-------------------------|
/// | `a`            | `qmatrix<M, K, QA>`     |
/// | `transpose(b)` | view of `qmatrix<N, K, QB>` |
/// | result         | `qmatrix<M, N, Out>`    |
template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto multiply(const A& a, const qmatrix_transpose<B>& b) noexcept
    -> basic_qmatrix<A::row_extent, qmatrix_transpose<B>::column_extent, Out> {
  using BT = qmatrix_transpose<B>;
  basic_qmatrix<A::row_extent, BT::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_multiply_rules<A, BT, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(detail::scale_product(A::quant.scale(), B::quant.scale()) / Out.scale());
    detail::kernels::int8_product_transposed_requantized(a.elements, b.of.elements, A::quant.zero_point,
                                                         B::quant.zero_point, multiplier, Out.zero_point, out.elements);
  }
  return out;
}

template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto multiply(const A& a, const B& b) noexcept
    -> basic_qmatrix<A::row_extent, B::column_extent, Out> {
  basic_qmatrix<A::row_extent, B::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_multiply_rules<A, B, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(detail::scale_product(A::quant.scale(), B::quant.scale()) / Out.scale());
    // Rationale: b transposed, so that both operands are read along K (the kernels' form); N x K bytes on the stack.
    std::int8_t b_transposed[B::cols][A::cols];
    for (std::size_t t = 0; t < A::cols; ++t) {
      for (std::size_t j = 0; j < B::cols; ++j) b_transposed[j][t] = b.elements[t][j];
    }
    detail::kernels::int8_product_transposed_requantized(a.elements, b_transposed, A::quant.zero_point,
                                                         B::quant.zero_point, multiplier, Out.zero_point, out.elements);
  }
  return out;
}

/// `multiply<Out>(a, b)` with one float operand, or one int8 and one int16 operand: refused at compile time
/// (`int8_operands_must_both_be_int8`, `quantized_operands_must_have_one_width`), with what to write instead.
///
/// Example: `ctattn::multiply<q_y>(x_q, ctattn::quantize<q_w>(w))` rather than `ctattn::multiply<q_y>(x_q, w)`.
template <quantization Out, typename A, typename B>
  requires(detail::QuantizedAndFloat<A, B> || detail::MixedWidths<A, B>)
constexpr auto multiply(const A&, const B&) noexcept {
  return detail::refuse_quantized_operation<op::quantized_multiply, A, B>();
}

/// `multiply(a, b)` (no `Out`) or `a * b` with a quantized operand (int8 or int16): refused at compile time, with what
/// to write instead (`int8_operation_needs_output_quantization`, or the rules above for a float operand or mixed
/// widths).
///
/// Example: `ctattn::multiply<q_y>(x_q, w_q)` rather than `ctattn::multiply(x_q, w_q)` or `x_q * w_q`.
template <typename A, typename B>
  requires(detail::AnyQuantizedMatrix<A> || detail::AnyQuantizedMatrix<B>)
constexpr auto multiply(const A&, const B&) noexcept {
  return detail::refuse_quantized_operation<op::quantized_multiply, A, B>();
}

/// \copydoc multiply(const A&, const B&)
template <typename A, typename B>
  requires(detail::AnyQuantizedMatrix<A> || detail::AnyQuantizedMatrix<B>)
constexpr auto operator*(const A& a, const B& b) noexcept {
  return multiply(a, b);
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_MULTIPLY_HPP
