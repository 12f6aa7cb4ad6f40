// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_ACTIVATION_HPP
#define CTATTN_QUANTIZED_ACTIVATION_HPP

/// \file
/// Int8 activations by lookup table, as int8 inference runners compute element-wise nonlinearities: an int8 input
/// has 256 possible values, so the compiler computes the activation of each once, exactly in double, quantized to
/// the output's quantization; at run time each element is one table lookup (integers only, the same bits on every
/// target and in constant evaluation).
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `qactivation<QIn, QOut>`                 | the table: `table[q + 128]` is the int8 output for input q    |
/// | `quantize_activation<QIn, QOut>(f)`      | the table of `relu`, `gelu`, `gelu_tanh` or `silu` (the float layers) |
/// | `activate(x, table)`                     | `qmatrix<R, C, QIn>` to `qmatrix<R, C, QOut>`, element by element |
///
/// Example:
/// \code
///   #include <ctattn/layers/activation.hpp>   // ctattn::gelu
///   constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
///   const auto h = ctattn::activate(hidden_q, gelu_q);   // qmatrix<n, 64, q_gelu>
/// \endcode

#include <cstddef>
#include <cstdint>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/activation.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

namespace detail {
// The float activation layers (ctattn/layers/activation.hpp) derive from activation_layer<F>; declared, not
// included.
// Rationale: the layers tier needs Boost.Hana and the core does not; a declaration is all that deducing F needs,
// and the layer's type is complete wherever a user names it.
template <kernels::activation F>
struct activation_layer;

template <kernels::activation F>
constexpr kernels::activation activation_function_of(const activation_layer<F>*) noexcept {
  return F;
}

// An activation layer of the layers tier: `relu`, `gelu`, `gelu_tanh`, `silu`.
template <typename A>
concept activation_layer_type = requires(const A* a) { activation_function_of(a); };
}  // namespace detail

/// An int8 activation for inputs quantized with QIn and outputs with QOut, as a 256-entry table:
/// `table[q + 128]` is the output for the input q, for every int8 q.
///
/// | member                | meaning                                                        |
/// |-----------------------|----------------------------------------------------------------|
/// | `table`               | 256 int8 outputs, 256 bytes                                    |
/// | `input_quantization`, `output_quantization` | QIn, QOut                                |
/// | `(q)`                 | the output for one int8 input                                  |
///
/// Rules: QIn and QOut are quantizations (`scale_must_be_positive`, `zero_point_must_fit_int8`).
///
/// Example:
/// \code
///   constexpr ctattn::quantization q_in{0.1, 0}, q_out{0.1, -128};
///   constexpr auto relu_q = ctattn::quantize_activation<q_in, q_out>(ctattn::relu{});
///   static_assert(relu_q(-5) == -128 && relu_q(7) == -121);   // real -0.5 -> 0, real 0.7 -> 0.7
/// \endcode
template <quantization QIn, quantization QOut>
struct qactivation {
  static_assert((detail::first_broken<detail::quantization_rules<QIn>>::check(), true));
  static_assert((detail::first_broken<detail::quantization_rules<QOut>>::check(), true));
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;

  std::int8_t table[256]{};

  [[nodiscard]] constexpr std::int8_t operator()(std::int8_t q) const noexcept {
    return table[static_cast<std::size_t>(std::int32_t{q} + 128)];
  }

  /// `ctattn::activate(x, *this)`: the call of the layer protocol, as `qlinear::forward`.
  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return activate(x, *this);
  }

  /// The memory of `activate(x, table)` on an X (ctattn::footprint): the 256-byte table, X and the result.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qactivation), sizeof(X), sizeof(basic_qmatrix<X::row_extent, X::column_extent, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qactivation&, const qactivation&) = default;
};

/// The int8 table of a float activation layer for inputs QIn and outputs QOut:
/// `table[q + 128]` = quantize_QOut(f(QIn.scale() (q - QIn.zero_point))), f computed in double by the layer's own
/// definition (ctattn/kernels/activation.hpp, ctattn::math), quantized as `quantize` does (ties away from zero,
/// saturating). Each output is the int8 nearest to the activation of the input's real value: within half an output
/// step, unless it saturates.
///
/// | operand | what                                          |
/// |---------|-----------------------------------------------|
/// | `f`     | `relu{}`, `gelu{}`, `gelu_tanh{}` or `silu{}` (ctattn/layers/activation.hpp) |
/// | result  | `qactivation<QIn, QOut>`                      |
///
/// Example:
/// \code
///   constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
/// \endcode
template <quantization QIn, quantization QOut, detail::activation_layer_type Activation>
[[nodiscard]] constexpr qactivation<QIn, QOut> quantize_activation(const Activation& /* f */) noexcept {
  constexpr detail::kernels::activation function =
      detail::activation_function_of(static_cast<const Activation*>(nullptr));
  qactivation<QIn, QOut> q{};
  for (std::int32_t v = -128; v <= 127; ++v) {
    const double x = QIn.scale() * static_cast<double>(v - QIn.zero_point);
    const double y = detail::kernels::activate<function>(x);
    const std::int64_t quantized = detail::round_away(y / QOut.scale()) + QOut.zero_point;
    q.table[v + 128] = static_cast<std::int8_t>(quantized < -128 ? -128 : (quantized > 127 ? 127 : quantized));
  }
  return q;
}

namespace detail {
template <typename X, quantization QIn>
using quantized_activation_rules =
    rule_list<shape_error::input_quantization_must_match_layer<op::quantized_activation, typename X::quantization_type,
                                                               quantization_constant<QIn>>>;
}  // namespace detail

/// The int8 activation of every element of x: one lookup in the table each.
///
/// | operand | shape                     |
/// |---------|---------------------------|
/// | `x`     | `qmatrix<R, C, QIn>`      |
/// | `f`     | `qactivation<QIn, QOut>`  |
/// | result  | `qmatrix<R, C, QOut>` (x's extents) |
///
/// Rules: x is quantized with the table's input quantization (`input_quantization_must_match_layer`).
///
/// Example:
/// \code
///   const auto h = ctattn::activate(hidden_q, gelu_q);
/// \endcode
template <QuantizedMatrix X, quantization QIn, quantization QOut>
[[nodiscard]] constexpr auto activate(const X& x, const qactivation<QIn, QOut>& f) noexcept
    -> basic_qmatrix<X::row_extent, X::column_extent, QOut> {
  basic_qmatrix<X::row_extent, X::column_extent, QOut> y;
  if constexpr (detail::first_broken<detail::quantized_activation_rules<X, QIn>>::check()) {
    detail::kernels::int8_lookup_rows(x.elements, y.elements, f.table);
  }
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ACTIVATION_HPP
