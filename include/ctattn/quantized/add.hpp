// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_ADD_HPP
#define CTATTN_QUANTIZED_ADD_HPP

/// \file
/// The element-wise sum of two int8 matrices into a third quantization (a residual connection in int8), as
/// TensorFlow Lite's int8 ADD computes it: both inputs brought to a common scale, twice the larger input scale
/// divided by 2^20, then summed in int32 and requantized. The multipliers are derived by the compiler.

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
// The fixed-point constants of an int8 sum of inputs quantized QA and QB into Out.
template <quantization QA, quantization QB, quantization Out>
struct quantized_add_constants {
  static constexpr int left_shift = 20;
  static constexpr double twice_larger_scale = 2.0 * (QA.scale() > QB.scale() ? QA.scale() : QB.scale());
  static constexpr math::quantized_multiplier a = math::quantize_multiplier(QA.scale() / twice_larger_scale);
  static constexpr math::quantized_multiplier b = math::quantize_multiplier(QB.scale() / twice_larger_scale);
  static constexpr math::quantized_multiplier out =
      math::quantize_multiplier(twice_larger_scale / (static_cast<double>(1 << left_shift) * Out.scale()));
};

template <typename A, typename B, quantization Out>
using quantized_add_rules =
    rule_list<rows_rule<op::quantized_add, A, B>, columns_rule<op::quantized_add, A, B>, quantization_rules<Out>>;
}  // namespace detail

/// a + b element by element, quantized with `Out` (TFLite's int8 ADD): each input, less its zero point, shifted
/// left by 20 bits and scaled to the common scale 2 max(a_scale, b_scale) / 2^20, the two summed in int32, then
/// requantized to Out. The same bits in constant evaluation and at run time, on every target.
///
/// | operand | shape                 |
/// |---------|-----------------------|
/// | `a`     | `qmatrix<R, C, QA>`   |
/// | `b`     | `qmatrix<R, C, QB>`   |
/// | result  | `qmatrix<R, C, Out>`  |
///
/// Rules: a and b have the same rows and columns (`rows_must_match`, `columns_must_match`); Out is a quantization.
///
/// Example:
/// \code
///   constexpr auto h = ctattn::add<ctattn::quantization{0.1, 0}>(x_q, attention_q);   // x + attention(x), in int8
/// \endcode
template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto add(const A& a, const B& b) noexcept
    -> basic_qmatrix<A::row_extent, A::column_extent, Out> {
  basic_qmatrix<A::row_extent, A::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_add_rules<A, B, Out>>::check()) {
    using k = detail::quantized_add_constants<A::quant, B::quant, Out>;
    detail::kernels::int8_add_rows<k::a, k::b, k::left_shift, k::out>(
        a.elements, A::quant.zero_point, b.elements, B::quant.zero_point, Out.zero_point, out.elements);
  }
  return out;
}

/// `add<Out>(a, b)` with one float operand, or one int8 and one int16 operand: refused at compile time
/// (`int8_operands_must_both_be_int8`, `quantized_operands_must_have_one_width`), with what to write instead.
///
/// Example: `ctattn::add<q_sum>(x_q, ctattn::quantize<q_x>(residual))` rather than `ctattn::add<q_sum>(x_q, residual)`;
/// `ctattn::add<q16>(ctattn::quantize<q_x16, std::int16_t>(x8), y16)` rather than `ctattn::add<q16>(x8, y16)`.
template <quantization Out, typename A, typename B>
  requires(detail::QuantizedAndFloat<A, B> || detail::MixedWidths<A, B>)
constexpr auto add(const A&, const B&) noexcept {
  return detail::refuse_quantized_operation<op::quantized_add, A, B>();
}

/// `a + b` with a quantized operand (int8 or int16): refused at compile time, with what to write instead
/// (`ctattn::add<Out>(a, b)`; `int8_operation_needs_output_quantization`, or the rules above for a float operand or
/// mixed widths).
///
/// Example: `ctattn::add<q_sum>(a_q, b_q)` rather than `a_q + b_q`.
template <typename A, typename B>
  requires(detail::AnyQuantizedMatrix<A> || detail::AnyQuantizedMatrix<B>)
constexpr auto operator+(const A&, const B&) noexcept {
  return detail::refuse_quantized_operation<op::quantized_add, A, B>();
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ADD_HPP
