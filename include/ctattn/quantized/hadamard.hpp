// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_HADAMARD_HPP
#define CTATTN_QUANTIZED_HADAMARD_HPP

/// \file
/// The element-wise product of two int8 matrices into a third quantization (the gate of a gated feed-forward block
/// in int8), as TensorFlow Lite's int8 MUL computes it: (a - a_zero)(b - b_zero) in int32, requantized with the
/// multiplier a_scale b_scale / out_scale, which the compiler derives.

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

// Rationale: after the int8 headers, so that an int8 rule's diagnostic names the same short chain of includes as
// before the int16 tier (Clang prints each level above its first error line, and a compile-fail test reads the
// first 16 lines).
#include "ctattn/quantized/q16matrix.hpp"

namespace ctattn {

namespace detail {
template <typename A, typename B, quantization Out>
using quantized_hadamard_rules = rule_list<rows_rule<op::quantized_hadamard, A, B>,
                                           columns_rule<op::quantized_hadamard, A, B>, quantization_rules<Out>>;
}  // namespace detail

/// a * b element by element, quantized with `Out` (TFLite's int8 MUL): each product of the inputs less their zero
/// points, in int32, times the multiplier a_scale b_scale / out_scale (fixed point), plus Out's zero point, clamped
/// to int8. The same bits in constant evaluation and at run time, on every target.
///
/// | operand | shape                 |
/// |---------|-----------------------|
/// | `a`     | `qmatrix<R, C, QA>`   |
/// | `b`     | `qmatrix<R, C, QB>`   |
/// | result  | `qmatrix<R, C, Out>`  |
///
/// Rules: a and b have the same rows and columns (`rows_must_match`, `columns_must_match`, `op::quantized_hadamard`);
/// Out is a quantization.
///
/// Example:
/// \code
///   constexpr auto gated = ctattn::hadamard<ctattn::quantization{0.05, 0}>(x_q, x_q);   // x * x, in int8
/// \endcode
template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto hadamard(const A& a, const B& b) noexcept
    -> basic_qmatrix<A::row_extent, A::column_extent, Out> {
  basic_qmatrix<A::row_extent, A::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_hadamard_rules<A, B, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(A::quant.scale() * B::quant.scale() / Out.scale());
    detail::kernels::int8_multiply_rows<multiplier>(a.elements, A::quant.zero_point, b.elements, B::quant.zero_point,
                                                    Out.zero_point, out.elements);
  }
  return out;
}

/// `hadamard<Out>(a, b)` with one float operand, or one int8 and one int16 operand: refused at compile time
/// (`int8_operands_must_both_be_int8`, `quantized_operands_must_have_one_width`), with what to write instead.
///
/// Example: `ctattn::hadamard<q_y>(gate_q, ctattn::quantize<q_u>(up))` rather than `ctattn::hadamard<q_y>(gate_q, up)`.
template <quantization Out, typename A, typename B>
  requires(detail::QuantizedAndFloat<A, B> || detail::MixedWidths<A, B>)
constexpr auto hadamard(const A&, const B&) noexcept {
  return detail::refuse_quantized_operation<op::quantized_hadamard, A, B>();
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_HADAMARD_HPP
