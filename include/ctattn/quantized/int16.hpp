// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_INT16_HPP
#define CTATTN_QUANTIZED_INT16_HPP

/// \file
/// The operations on int16 matrices (TFLite's 16x8 mode: int16 activations), each TFLite Micro's reference
/// arithmetic bit for bit (kernels/int16.hpp), with the names of the int8 ones:
///
/// | operation                       | TFLite operator | result                                        |
/// |---------------------------------|-----------------|-----------------------------------------------|
/// | `multiply<Out>(a, b)`           | BATCH_MATMUL    | `q16matrix<M, N, Out>`                        |
/// | `multiply<Out>(a, transpose(b))`| BATCH_MATMUL (adj_y) | `q16matrix<M, N, Out>`                   |
/// | `add<Out>(a, b)`                | ADD             | `q16matrix<R, C, Out>`                        |
/// | `hadamard<Out>(a, b)`           | MUL             | `q16matrix<R, C, Out>`                        |
/// | `softmax_rows(x)`               | SOFTMAX         | `q16matrix<R, C, int16_softmax_output_quantization>` |
///
/// Every multiplier is derived by the compiler as TFLite Micro derives it when it prepares the operator; scales
/// its fixed-point steps cannot take stop the build (`int16_scales_must_suit_the_kernel`), and an int8 operand
/// given with an int16 one is the rule `quantized_operands_must_have_one_width` (quantized/add.hpp, multiply.hpp and
/// hadamard.hpp refuse such calls).

#include <cstddef>
#include <cstdint>

#include "ctattn/kernels/int16.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/add.hpp"
#include "ctattn/quantized/hadamard.hpp"
#include "ctattn/quantized/multiply.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

/// The quantization of int16 softmax outputs (TFLite's): weight w is round(32768 w), 1 held at 32767.
inline constexpr quantization int16_softmax_output_quantization{1.0 / 32768.0, 0};

namespace detail {
template <typename A, typename B, quantization Out>
using int16_multiply_rules = rule_list<
    shape_error::inner_dimensions_must_match<op::int16_multiply, dim_of<A::column_extent>, dim_of<B::row_extent>>,
    // The reduced multiplier's shift stays below 8 (TFLite's bound for the int64 requantization).
    shape_error::int16_scales_must_suit_the_kernel<
        op::int16_multiply, shift_at_most(scale_product(A::quant.scale(), B::quant.scale()) / Out.scale(), 7),
        quantization_constant<A::quant>, quantization_constant<B::quant>, quantization_constant<Out>>>;

// TFLite's int16 ADD: both inputs shifted left by 15 bits and brought to the common scale 2 max(a, b) / 2^15.
template <quantization QA, quantization QB, quantization Out>
struct int16_add_constants {
  static constexpr double twice_larger_scale = 2.0 * (QA.scale() > QB.scale() ? QA.scale() : QB.scale());
  static constexpr double out_real = twice_larger_scale / (32768.0 * Out.scale());
  static constexpr math::quantized_multiplier a = math::quantize_multiplier(QA.scale() / twice_larger_scale);
  static constexpr math::quantized_multiplier b = math::quantize_multiplier(QB.scale() / twice_larger_scale);
  static constexpr math::quantized_multiplier out = math::quantize_multiplier(out_real);
};

template <typename A, typename B, quantization Out>
using int16_add_rules =
    rule_list<rows_rule<op::int16_add, A, B>, columns_rule<op::int16_add, A, B>,
              shape_error::int16_scales_must_suit_the_kernel<
                  op::int16_add, (int16_add_constants<A::quant, B::quant, Out>::out_real < 1.0),
                  quantization_constant<A::quant>, quantization_constant<B::quant>, quantization_constant<Out>>>;

template <typename A, typename B, quantization Out>
using int16_hadamard_rules =
    rule_list<rows_rule<op::int16_hadamard, A, B>, columns_rule<op::int16_hadamard, A, B>,
              shape_error::int16_scales_must_suit_the_kernel<
                  op::int16_hadamard, shift_at_most(A::quant.scale() * B::quant.scale() / Out.scale(), 0),
                  quantization_constant<A::quant>, quantization_constant<B::quant>, quantization_constant<Out>>>;

// TFLite's int16 softmax input multiplier: beta s_in over 10 / 65535 (beta 1), in double.
template <quantization Q>
inline constexpr double int16_softmax_input_real = Q.scale() / (10.0 / 65535.0);
template <quantization Q>
inline constexpr math::quantized_multiplier int16_softmax_input =
    math::quantize_multiplier(int16_softmax_input_real<Q>);

}  // namespace detail

/// The int16 product a b, quantized with `Out`: clamp(sum_k a_ik b_kj in int64, times a_scale b_scale / out_scale
/// reduced to a 16-bit multiplier, rounded half up): TFLite's int16 BATCH_MATMUL bit for bit (the scales' product
/// in float32 when both are float32 values, as TFLite takes it).
///
/// | operand | shape                   |
/// |---------|-------------------------|
/// | `a`     | `q16matrix<M, K, QA>`   |
/// | `b`     | `q16matrix<K, N, QB>`   |
/// | result  | `q16matrix<M, N, Out>`  |
///
/// Rules: K matches (`inner_dimensions_must_match`); out_scale > a_scale b_scale / 128
/// (`int16_scales_must_suit_the_kernel`); Out's zero point is 0.
///
/// Example:
/// \code
///   constexpr auto scores = ctattn::multiply<ctattn::quantization{0.001}>(q16, ctattn::transpose(k16));
/// \endcode
template <quantization Out, Quantized16Matrix A, Quantized16Matrix B>
[[nodiscard]] constexpr auto multiply(const A& a, const qmatrix_transpose<B>& b) noexcept
    -> basic_q16matrix<A::row_extent, qmatrix_transpose<B>::column_extent, Out> {
  using BT = qmatrix_transpose<B>;
  basic_q16matrix<A::row_extent, BT::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::int16_multiply_rules<A, BT, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(detail::scale_product(A::quant.scale(), B::quant.scale()) / Out.scale());
    detail::kernels::int16_product_transposed(a.elements, b.of.elements, multiplier, out.elements);
  }
  return out;
}

/// \copydoc multiply(const A&, const qmatrix_transpose<B>&)
template <quantization Out, Quantized16Matrix A, Quantized16Matrix B>
[[nodiscard]] constexpr auto multiply(const A& a, const B& b) noexcept
    -> basic_q16matrix<A::row_extent, B::column_extent, Out> {
  basic_q16matrix<A::row_extent, B::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::int16_multiply_rules<A, B, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(detail::scale_product(A::quant.scale(), B::quant.scale()) / Out.scale());
    // Rationale: b transposed, so that both operands are read along K (the kernel's form); N x K on the stack.
    std::int16_t b_transposed[B::cols][A::cols];
    for (std::size_t t = 0; t < A::cols; ++t) {
      for (std::size_t j = 0; j < B::cols; ++j) b_transposed[j][t] = b.elements[t][j];
    }
    detail::kernels::int16_product_transposed(a.elements, b_transposed, multiplier, out.elements);
  }
  return out;
}

/// a + b element by element, quantized with `Out`: TFLite's int16 ADD bit for bit (each input times 2^15 and
/// brought to the common scale 2 max(a_scale, b_scale) / 2^15, summed in int32, requantized).
///
/// | operand | shape                  |
/// |---------|------------------------|
/// | `a`     | `q16matrix<R, C, QA>`  |
/// | `b`     | `q16matrix<R, C, QB>`  |
/// | result  | `q16matrix<R, C, Out>` |
///
/// Rules: a and b have the same rows and columns; out_scale > 2 max(a_scale, b_scale) / 32768
/// (`int16_scales_must_suit_the_kernel`).
///
/// Example: `const auto h = ctattn::add<ctattn::quantization{0.0005}>(x16, attention16);`
template <quantization Out, Quantized16Matrix A, Quantized16Matrix B>
[[nodiscard]] constexpr auto add(const A& a, const B& b) noexcept
    -> basic_q16matrix<A::row_extent, A::column_extent, Out> {
  basic_q16matrix<A::row_extent, A::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::int16_add_rules<A, B, Out>>::check()) {
    using k = detail::int16_add_constants<A::quant, B::quant, Out>;
    detail::kernels::int16_add_rows<k::a, k::b, k::out>(a.elements, b.elements, out.elements);
  }
  return out;
}

/// a * b element by element, quantized with `Out`: TFLite's int16 MUL bit for bit (the int32 product times
/// a_scale b_scale / out_scale).
///
/// | operand | shape                  |
/// |---------|------------------------|
/// | `a`     | `q16matrix<R, C, QA>`  |
/// | `b`     | `q16matrix<R, C, QB>`  |
/// | result  | `q16matrix<R, C, Out>` |
///
/// Rules: a and b have the same rows and columns; out_scale > a_scale b_scale (`int16_scales_must_suit_the_kernel`:
/// the product, up to 2^30, is not shifted left).
///
/// Example: `const auto gated = ctattn::hadamard<ctattn::quantization{0.001}>(a16, b16);`
template <quantization Out, Quantized16Matrix A, Quantized16Matrix B>
[[nodiscard]] constexpr auto hadamard(const A& a, const B& b) noexcept
    -> basic_q16matrix<A::row_extent, A::column_extent, Out> {
  basic_q16matrix<A::row_extent, A::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::int16_hadamard_rules<A, B, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(A::quant.scale() * B::quant.scale() / Out.scale());
    detail::kernels::int16_multiply_rows<multiplier>(a.elements, b.elements, out.elements);
  }
  return out;
}

/// The softmax of each row of an int16 matrix, TFLite's int16 SOFTMAX bit for bit (beta 1): e^(x - max) and 1 /
/// sum read from two 513-entry tables with linear interpolation (kernels/detail/int16_softmax_tables.hpp), the
/// weights quantized with `int16_softmax_output_quantization`.
///
/// | operand | shape                                              |
/// |---------|----------------------------------------------------|
/// | `x`     | `q16matrix<R, C, Q>`                               |
/// | result  | `q16matrix<R, C, int16_softmax_output_quantization>` |
///
/// Rules: Q's scale is below 5 (`int16_scales_must_suit_the_kernel`: (x - max) times the input multiplier fits an
/// int32). Differences beyond 10 (real) give the table's floor, e^-10.
///
/// Example: `const auto w = ctattn::softmax_rows(scores16);   // w(i, j) / 32768 is the weight`
template <Quantized16Matrix X>
[[nodiscard]] constexpr auto softmax_rows(const X& x) noexcept
    -> basic_q16matrix<X::row_extent, X::column_extent, int16_softmax_output_quantization> {
  basic_q16matrix<X::row_extent, X::column_extent, int16_softmax_output_quantization> w;
  if constexpr (detail::first_broken<rule_list<shape_error::int16_scales_must_suit_the_kernel<
                    op::int16_softmax, detail::shift_at_most(detail::int16_softmax_input_real<X::quant>, 15),
                    quantization_constant<X::quant>>>>::check()) {
    for (std::size_t r = 0; r < X::rows; ++r) {
      detail::kernels::int16_softmax_row<detail::int16_softmax_input<X::quant>>(x.elements[r], w.elements[r], X::cols);
    }
  }
  return w;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_INT16_HPP
