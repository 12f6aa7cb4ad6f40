// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_ACTIVATION_HPP
#define CTATTN_QUANTIZED_ACTIVATION_HPP

/// \file
/// Int8 activations by lookup table, as int8 inference runners compute element-wise nonlinearities: an int8 input
/// has 256 possible values, so the compiler computes the activation of each once, exactly in double, quantized to
/// the output's quantization; at run time each element is one table lookup (integers only, the same bits on every
/// target and in constant evaluation).
///
/// Int16 activations (16x8) cannot be tabled value by value (65,536 entries); as TFLite computes its int16 LOGISTIC
/// and TANH, the table holds 513 samples, one every 128 input steps, and each element is read between two of them
/// with 7 bits of interpolation (`kernels::int16_table_lookup`). TFLite has no int16 GELU; the table of every
/// activation is ctattn's, stated below (`quantize_activation<QIn, QOut, std::int16_t>`).
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `qactivation<QIn, QOut>`                 | the table: `table[q + 128]` is the int8 output for input q    |
/// | `quantize_activation<QIn, QOut>(f)`      | the table of `relu`, `gelu`, `gelu_tanh` or `silu` (the float layers) |
/// | `activate(x, table)`                     | `qmatrix<R, C, QIn>` to `qmatrix<R, C, QOut>`, element by element |
/// | `q16activation<QIn, QOut>`               | the int16 table: 513 samples, `table[i]` the output at input 128 i - 32768 |
/// | `quantize_activation<QIn, QOut, std::int16_t>(f)` | the int16 table of a float activation (16x8)          |
/// | `activate(x16, table16)`                 | `q16matrix<R, C, QIn>` to `q16matrix<R, C, QOut>`, interpolated |
///
/// Example:
/// \code
///   #include <ctattn/layers/activation.hpp>   // ctattn::gelu
///   constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
///   const auto h = ctattn::activate(hidden_q, gelu_q);   // qmatrix<n, 64, q_gelu>
/// \endcode

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/activation.hpp"
#include "ctattn/kernels/int16.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/quantized/q16matrix.hpp"
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
/// With `Value` `std::int16_t` (`q16activation<QIn, QOut>`), the 16x8 activation: `table` holds 513 int16 samples,
/// `table[i]` the output for the input 128 i - 32768 (the last one past the int16 range), 1,026 bytes, and `(q)`
/// reads between two of them (`kernels::int16_table_lookup`).
///
/// Rules: QIn and QOut are quantizations (`scale_must_be_positive`, `zero_point_must_fit_int8`; for int16
/// `int16_zero_point_must_be_zero`).
///
/// Example:
/// \code
///   constexpr ctattn::quantization q_in{0.1, 0}, q_out{0.1, -128};
///   constexpr auto relu_q = ctattn::quantize_activation<q_in, q_out>(ctattn::relu{});
///   static_assert(relu_q(-5) == -128 && relu_q(7) == -121);   // real -0.5 -> 0, real 0.7 -> 0.7
/// \endcode
template <quantization QIn, quantization QOut, detail::quantized_value Value = std::int8_t>
struct qactivation {
  static_assert((detail::first_broken<detail::value_quantization_rules<Value, QIn>>::check(), true));
  static_assert((detail::first_broken<detail::value_quantization_rules<Value, QOut>>::check(), true));
  using value_type = Value;
  static constexpr bool int16 = std::same_as<Value, std::int16_t>;
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  /// The table's entries: 256 (int8: one per input), 513 (int16: one per 128 inputs, and the end).
  static constexpr std::size_t entries = int16 ? 513 : 256;

  Value table[entries]{};

  [[nodiscard]] constexpr Value operator()(Value q) const noexcept {
    if constexpr (int16) {
      return detail::kernels::int16_table_lookup(q, table);
    } else {
      return table[static_cast<std::size_t>(std::int32_t{q} + 128)];
    }
  }

  /// `ctattn::activate(x, *this)`: the call of the layer protocol, as `qlinear::forward`.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return activate(x, *this);
  }

  /// The memory of `activate(x, table)` on an X (ctattn::footprint): the table (256 or 1,026 bytes), X and the
  /// result.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qactivation), sizeof(X),
            sizeof(detail::basic_quantized_matrix<Value, X::row_extent, X::column_extent, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qactivation&, const qactivation&) = default;
};

/// An int16 activation (16x8) for inputs QIn and outputs QOut: `qactivation` with `Value` `std::int16_t`.
template <quantization QIn, quantization QOut>
using q16activation = qactivation<QIn, QOut, std::int16_t>;

/// The table of a float activation layer for inputs QIn and outputs QOut, int8 (`Value` `std::int8_t`, the default)
/// or int16 (16x8, `Value` `std::int16_t`). In int8:
/// `table[q + 128]` = quantize_QOut(f(QIn.scale() (q - QIn.zero_point))), f computed in double by the layer's own
/// definition (ctattn/kernels/activation.hpp, ctattn::math), quantized as `quantize` does (ties away from zero,
/// saturating). Each output is the int8 nearest to the activation of the input's real value: within half an output
/// step, unless it saturates.
///
/// | operand | what                                          |
/// |---------|-----------------------------------------------|
/// | `f`     | `relu{}`, `gelu{}`, `gelu_tanh{}` or `silu{}` (ctattn/layers/activation.hpp) |
/// | result  | `qactivation<QIn, QOut, Value>`               |
///
/// In 16x8 (both zero points 0), f in double by the layer's own definition:
///
///     x_i = s_in (128 i - 32768), i = 0 .. 512;  sag_i = (f(x_i) + f(x_i+1)) / 2 - f(x_i + 64 s_in), i < 512
///     c_0 = sag_0 / 2,  c_512 = sag_511 / 2,  c_i = (sag_i-1 + sag_i) / 4
///     table[i] = clamp(round((f(x_i) - c_i) / s_out), -32768, 32767), ties away from zero
///
/// Rationale: a chord of 128 input steps lies off the curve by up to sag_i, all on one side where f bends one way;
/// moving each sample by half its segments' mean sag splits that error across both sides, so it is about half the
/// sag. Each output, read between two entries, is within 1 + 1024 s_in^2 max|f''| / s_out output steps of f of the
/// input's real value where f'' is about constant over 256 input steps, and within 1 + 3072 s_in^2 max|f''| / s_out
/// anywhere (|sag_i| <= 2048 s_in^2 max|f''|, |c_i| half that; the entries' rounding and the interpolation's half a
/// step each), unless it saturates. For GELU max|f''| = 2 phi(0) < 0.8, for SiLU 1/2; ReLU's corner lies on the
/// sample of input 0, so its sags are 0 and its chords exact.
///
/// Example:
/// \code
///   constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
///   constexpr auto gelu16 = ctattn::quantize_activation<q_hidden16, q_gelu16, std::int16_t>(ctattn::gelu{});
///   const auto h = ctattn::activate(hidden16, gelu16);   // q16matrix<n, 64, q_gelu16>
/// \endcode
template <quantization QIn, quantization QOut, detail::quantized_value Value = std::int8_t,
          detail::activation_layer_type Activation>
[[nodiscard]] constexpr qactivation<QIn, QOut, Value> quantize_activation(const Activation& /* f */) noexcept {
  constexpr detail::kernels::activation function =
      detail::activation_function_of(static_cast<const Activation*>(nullptr));
  qactivation<QIn, QOut, Value> q{};
  if constexpr (std::same_as<Value, std::int16_t>) {
    const auto f = [](std::int32_t step) { return detail::kernels::activate<function>(QIn.scale() * step); };
    double sample[513]{};
    double sag[512]{};
    for (std::int32_t i = 0; i <= 512; ++i) sample[i] = f(128 * i - 32768);
    for (std::int32_t i = 0; i < 512; ++i) sag[i] = (sample[i] + sample[i + 1]) / 2.0 - f(128 * i - 32768 + 64);
    for (std::int32_t i = 0; i <= 512; ++i) {
      const double correction = i == 0 ? sag[0] / 2.0 : (i == 512 ? sag[511] / 2.0 : (sag[i - 1] + sag[i]) / 4.0);
      const std::int64_t quantized = detail::round_away((sample[i] - correction) / QOut.scale());
      q.table[i] = static_cast<std::int16_t>(quantized < -32768 ? -32768 : (quantized > 32767 ? 32767 : quantized));
    }
  } else {
    for (std::int32_t v = -128; v <= 127; ++v) {
      const double x = QIn.scale() * static_cast<double>(v - QIn.zero_point);
      const double y = detail::kernels::activate<function>(x);
      const std::int64_t quantized = detail::round_away(y / QOut.scale()) + QOut.zero_point;
      q.table[v + 128] = static_cast<std::int8_t>(quantized < -128 ? -128 : (quantized > 127 ? 127 : quantized));
    }
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

/// The int16 activation of every element of x (16x8): each read between two of the table's samples.
///
/// | operand | shape                        |
/// |---------|------------------------------|
/// | `x`     | `q16matrix<R, C, QIn>`       |
/// | `f`     | `q16activation<QIn, QOut>`   |
/// | result  | `q16matrix<R, C, QOut>` (x's extents) |
///
/// Rules: x is quantized with the table's input quantization (`input_quantization_must_match_layer`).
///
/// Example: `const auto h = ctattn::activate(hidden16, gelu16);`
template <Quantized16Matrix X, quantization QIn, quantization QOut>
[[nodiscard]] constexpr auto activate(const X& x, const qactivation<QIn, QOut, std::int16_t>& f) noexcept
    -> basic_q16matrix<X::row_extent, X::column_extent, QOut> {
  basic_q16matrix<X::row_extent, X::column_extent, QOut> y;
  if constexpr (detail::first_broken<detail::quantized_activation_rules<X, QIn>>::check()) {
    detail::kernels::int16_lookup_rows(x.elements, y.elements, f.table);
  }
  return y;
}

/// `activate(x, f)` with an int8 x and an int16 table, or an int16 x and an int8 table: refused at compile time
/// (`quantized_operands_must_have_one_width`), with the conversion to write.
///
/// Example: `ctattn::activate(ctattn::quantize<q_hidden16, std::int16_t>(x8), gelu16)` rather than
/// `ctattn::activate(x8, gelu16)`.
template <detail::AnyQuantizedMatrix X, quantization QIn, quantization QOut, typename Value>
  requires(!std::same_as<typename X::value_type, Value>)
constexpr auto activate(const X&, const qactivation<QIn, QOut, Value>&) noexcept {
  using L = qactivation<QIn, QOut, Value>;
  static_assert((shape_error::quantized_operands_must_have_one_width<op::quantized_activation, X, L>::check(), true));
  return detail::basic_quantized_matrix<Value, X::row_extent, X::column_extent, QOut>{};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ACTIVATION_HPP
