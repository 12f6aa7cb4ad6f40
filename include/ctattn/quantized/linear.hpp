#ifndef CTATTN_QUANTIZED_LINEAR_HPP
#define CTATTN_QUANTIZED_LINEAR_HPP

/// \file
/// The int8 linear layer of TFLite's fully-connected operator with per-channel weights: int8 weights in PyTorch's
/// out x in layout, each output channel with its own symmetric scale, an int32 bias, and one fixed-point multiplier
/// per channel, all derived by the compiler from a float `ctattn::linear`.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `channel_scales<N>`                      | N positive scales, a template argument                        |
/// | `weight_scales(w)`                       | max \|w_c\| / 127 for each row c of an out x in weight          |
/// | `qlinear<In, Out, QIn, QOut, Scales>`    | the int8 layer: `weight` (Out x In int8), `bias` (Out int32)  |
/// | `quantize_linear<QIn, QOut, Scales>(l)`  | a float `linear<float, In, Out, out_by_in, HasBias>` quantized |
/// | `project(x, layer)`                      | y = x W^T + b: `qmatrix<n, In, QIn>` to `qmatrix<n, Out, QOut>` |
///
/// Example:
/// \code
///   constexpr auto q_in = ctattn::quantization_for_range(ctattn::observed_range(calibration_inputs));
///   constexpr auto q_out = ctattn::quantization_for_range(ctattn::observed_range(calibration_outputs));
///   constexpr auto scales = ctattn::weight_scales(head.weight);
///   constexpr auto head_q = ctattn::quantize_linear<q_in, q_out, scales>(head);
///   const auto y = ctattn::project(ctattn::quantize<q_in>(x), head_q);
/// \endcode

#include <bit>
#include <cstddef>
#include <cstdint>

#include "ctattn/attention/projection.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

/// The symmetric scales of N output channels (zero point 0), as the bits of doubles: a template argument.
///
/// Example: `constexpr ctattn::channel_scales<2> s{{0.01, 0.02}}; static_assert(s[1] == 0.02);`
template <std::size_t N>
struct channel_scales {
  std::uint64_t bits[N]{};

  constexpr channel_scales() noexcept = default;
  constexpr explicit channel_scales(const double (&scales)[N]) noexcept {
    for (std::size_t c = 0; c < N; ++c) bits[c] = std::bit_cast<std::uint64_t>(scales[c]);
  }
  [[nodiscard]] constexpr double operator[](std::size_t c) const noexcept { return std::bit_cast<double>(bits[c]); }
  friend constexpr bool operator==(const channel_scales&, const channel_scales&) = default;
};

/// The per-channel symmetric scales of an out x in weight matrix (PyTorch's layout): max |w_c| / 127 for each row
/// c, 1 for a row of zeros.
///
/// Example: `constexpr auto scales = ctattn::weight_scales(layer.weight);`
template <FixedMatrix W>
[[nodiscard]] constexpr channel_scales<W::rows> weight_scales(const W& w) noexcept {
  channel_scales<W::rows> scales{};
  for (std::size_t c = 0; c < W::rows; ++c) {
    double largest = 0.0;
    for (std::size_t k = 0; k < W::cols; ++k) {
      const double magnitude = w.elements[c][k] < 0 ? -static_cast<double>(w.elements[c][k])
                                                     : static_cast<double>(w.elements[c][k]);
      largest = magnitude > largest ? magnitude : largest;
    }
    scales.bits[c] = std::bit_cast<std::uint64_t>(largest > 0.0 ? largest / 127.0 : 1.0);
  }
  return scales;
}

/// An int8 linear layer, y = x W^T + b, for inputs quantized with QIn and outputs with QOut: weights int8 with the
/// per-channel scales `Scales` (zero point 0), the bias int32 with scale QIn.scale() x Scales[c] (zero point 0).
///
/// | member / operand | shape / meaning                                                  |
/// |------------------|------------------------------------------------------------------|
/// | `weight`         | Out x In int8 (PyTorch's layout)                                 |
/// | `bias`           | Out int32                                                        |
/// | `multipliers`    | per channel, QIn.scale() x Scales[c] / QOut.scale() in fixed point |
template <auto In, auto Out, quantization QIn, quantization QOut, channel_scales<extent_size(Out)> Scales>
struct qlinear {
  static_assert((detail::first_broken<detail::quantization_rules<QIn>>::check(), true));
  static_assert((detail::first_broken<detail::quantization_rules<QOut>>::check(), true));
  static constexpr auto input_extent = In;
  static constexpr auto output_extent = Out;
  static constexpr std::size_t inputs = extent_size(In);
  static constexpr std::size_t outputs = extent_size(Out);
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  static constexpr channel_scales<outputs> scales = Scales;
  static constexpr auto multipliers = [] {
    struct table {
      math::quantized_multiplier values[outputs];
    } t{};
    for (std::size_t c = 0; c < outputs; ++c) {
      t.values[c] = math::quantize_multiplier(QIn.scale() * Scales[c] / QOut.scale());
    }
    return t;
  }();

  std::int8_t weight[outputs][inputs]{};
  std::int32_t bias[outputs]{};

  friend constexpr bool operator==(const qlinear&, const qlinear&) = default;
};

/// A float linear layer (PyTorch's out x in weights, with or without bias) quantized for inputs QIn and outputs QOut
/// with the per-channel weight scales `Scales` (usually `weight_scales(l.weight)`): each weight
/// round(w / scale_c) clamped to [-127, 127], each bias round(b / (QIn.scale() x scale_c)) (ties away from zero).
template <quantization QIn, quantization QOut, auto Scales, typename T, auto In, auto Out, bool HasBias>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l) noexcept {
  qlinear<In, Out, QIn, QOut, Scales> q{};
  for (std::size_t c = 0; c < q.outputs; ++c) {
    for (std::size_t k = 0; k < q.inputs; ++k) {
      const std::int64_t v = detail::round_away(static_cast<double>(l.weight.elements[c][k]) / Scales[c]);
      q.weight[c][k] = static_cast<std::int8_t>(v < -127 ? -127 : (v > 127 ? 127 : v));
    }
    if constexpr (HasBias) {
      q.bias[c] = static_cast<std::int32_t>(
          detail::round_away(static_cast<double>(l.bias.elements[0][c]) / (QIn.scale() * Scales[c])));
    }
  }
  return q;
}

namespace detail {
template <typename X, typename L>
using quantized_projection_rules =
    rule_list<shape_error::inner_dimensions_must_match<op::quantized_projection, dim_of<X::column_extent>,
                                                       dim_of<L::input_extent>>,
              shape_error::input_quantization_must_match_layer<op::quantized_projection,
                                                               typename X::quantization_type,
                                                               quantization_constant<L::input_quantization>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_projection, count<L::inputs>,
                                                              count<33025>>>;
}  // namespace detail

/// y = x W^T + b in int8: for each output channel c, the int32 sum of (x - x_zero) w_c plus the bias, times the
/// channel's multiplier, plus QOut's zero point, clamped (TFLite's per-channel fully-connected). The same bits in
/// constant evaluation and at run time, on every target.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `x`     | `qmatrix<n, In, QIn>`              |
/// | `layer` | `qlinear<In, Out, QIn, QOut, ...>` |
/// | result  | `qmatrix<n, Out, QOut>`            |
///
/// Rules: x's width is In (`inner_dimensions_must_match`), x is quantized as the layer expects
/// (`input_quantization_must_match_layer`), In <= 33025.
template <QuantizedMatrix X, auto In, auto Out, quantization QIn, quantization QOut, auto Scales>
[[nodiscard]] constexpr auto project(const X& x, const qlinear<In, Out, QIn, QOut, Scales>& layer) noexcept {
  using L = qlinear<In, Out, QIn, QOut, Scales>;
  basic_qmatrix<X::row_extent, Out, QOut> y{};
  if constexpr (detail::first_broken<detail::quantized_projection_rules<X, L>>::check()) {
    std::int32_t sums[X::rows][L::outputs]{};
    detail::kernels::int8_product_transposed(sums, x.elements, layer.weight, QIn.zero_point);
    for (std::size_t i = 0; i < X::rows; ++i) {
      for (std::size_t c = 0; c < L::outputs; ++c) {
        y.elements[i][c] =
            detail::kernels::requantize(sums[i][c] + layer.bias[c], L::multipliers.values[c], QOut.zero_point);
      }
    }
  }
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LINEAR_HPP
