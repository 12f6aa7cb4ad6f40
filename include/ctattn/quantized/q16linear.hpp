// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_Q16LINEAR_HPP
#define CTATTN_QUANTIZED_Q16LINEAR_HPP

/// \file
/// The 16x8 linear layer of TFLite's fully-connected operator: int16 activations (zero point 0), int8 weights with
/// one symmetric scale per output channel (or one per tensor), an int64 bias, and a fixed-point multiplier per channel,
/// derived by the compiler from a float `ctattn::linear`.
///
/// | entity                                                 | what                                                |
/// |--------------------------------------------------------|-----------------------------------------------------|
/// | `q16linear<In, Out, QIn, QOut[, Granularity]>`         | the layer: int8 `weight`, int64 `bias`, `multipliers` |
/// | `quantize_linear<QIn, QOut, std::int16_t[, Granularity]>(l[, scales])` | a float `linear` quantized for 16x8 |
/// | `project(x, layer)`                                    | y = x W^T + b: `q16matrix<n, In, QIn>` to `q16matrix<n, Out, QOut>` |
///
/// Example:
/// \code
///   constexpr auto head16 = ctattn::quantize_linear<q_in16, q_out16, std::int16_t>(head);
///   const auto y = ctattn::project(ctattn::quantize<q_in16, std::int16_t>(x), head16);
/// \endcode

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ctattn/attention/projection.hpp"
#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int16.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

/// A 16x8 linear layer, y = x W^T + b, for int16 inputs quantized with QIn and int16 outputs with QOut (both zero
/// point 0): int8 weights with one symmetric scale per output channel (`weight_granularity::per_channel`, the
/// default) or one (`per_tensor`), the bias int64 with scale QIn.scale() x scale_c, and each channel's multiplier
/// QIn.scale() x scale_c / QOut.scale() (per tensor: the scales' product in float32 when both are float32 values, as
/// TFLite's), which the constructor derives.
///
/// | member           | shape / meaning                                                     |
/// |------------------|---------------------------------------------------------------------|
/// | `weight`         | Out x In int8 (PyTorch's layout)                                    |
/// | `bias`           | Out int64 (TFLite's 16x8 bias)                                      |
/// | `multipliers`    | `scale_count` `math::quantized_multiplier`s (Out, or 1 per tensor)  |
///
/// Example:
/// \code
///   constexpr ctattn::q16linear<2, 1, q_in16, q_out16> layer{{{64, -127}}, {1000}, ctattn::channel_scales<1>{{0.01}}};
///   constexpr auto y = ctattn::project(x16, layer);    // x16: q16matrix<n, 2, q_in16>
/// \endcode
template <auto In, auto Out, quantization QIn, quantization QOut,
          weight_granularity Granularity = weight_granularity::per_channel>
struct q16linear {
  static_assert((detail::first_broken<detail::int16_quantization_rules<QIn>>::check(), true));
  static_assert((detail::first_broken<detail::int16_quantization_rules<QOut>>::check(), true));
  static constexpr auto input_extent = normalize_extent<In>;
  static constexpr auto output_extent = normalize_extent<Out>;
  static constexpr std::size_t inputs = extent_size(In);
  static constexpr std::size_t outputs = extent_size(Out);
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  static constexpr weight_granularity granularity = Granularity;
  /// Its activations are int16 (as `qlayer_norm::int16`, `qactivation::int16`).
  static constexpr bool int16 = true;
  /// The weight scales and multipliers the layer has: one per output channel, or one.
  static constexpr std::size_t scale_count = Granularity == weight_granularity::per_tensor ? 1 : outputs;

  std::int8_t weight[outputs][inputs]{};
  std::int64_t bias[outputs]{};
  math::quantized_multiplier multipliers[scale_count]{};

  /// All weights and biases 0 (every output 0).
  constexpr q16linear() noexcept = default;

  /// The layer of these int8 weights, int64 biases and weight scales (per channel, or one per tensor).
  constexpr q16linear(const std::int8_t (&int8_weights)[outputs][inputs], const std::int64_t (&int64_biases)[outputs],
                      const channel_scales<scale_count>& weight_scale) noexcept {
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      for (std::size_t input = 0; input < inputs; ++input) weight[channel][input] = int8_weights[channel][input];
      bias[channel] = int64_biases[channel];
    }
    for (std::size_t m = 0; m < scale_count; ++m) {
      multipliers[m] = math::quantize_multiplier(detail::input_weight_scale<Granularity>(QIn.scale(), weight_scale[m]) /
                                                 QOut.scale());
    }
  }

  /// Scales of another count (`channel_scales<Out>` per channel, one per tensor): not a layer; the build stops with
  /// `weight_scales_must_match_granularity`'s sentence.
  template <std::size_t S>
    requires(S != scale_count)
  constexpr q16linear(const std::int8_t (&)[outputs][inputs], const std::int64_t (&)[outputs],
                      const channel_scales<S>&) noexcept {
    static_assert((shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                     count<scale_count>>::check(),
                   true));
  }

  /// `ctattn::project(x, *this)`: the call of the layer protocol (ctattn/layers/layer.hpp).
  template <Quantized16Matrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(x, *this);
  }

  /// The memory of `project(x, layer)` on an X: the layer's object (flash when constexpr), X and the result, and on
  /// the stack the build's 16x8 kernel's paired rows (`detail::kernels::int16_product_stack_bytes`: up to 6 rows of
  /// In int16 on the Cortex-M DSP, none elsewhere).
  ///
  /// Example: `static_assert(ctattn::q16linear<32, 64, q_in16, q_out16>::footprint_of<decltype(x16)>().weight_bytes > 0);`
  template <Quantized16Matrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(q16linear), sizeof(X), sizeof(basic_q16matrix<X::row_extent, output_extent, QOut>), 0,
            detail::kernels::int16_product_stack_bytes<X::rows, inputs>};
  }

  friend constexpr bool operator==(const q16linear&, const q16linear&) = default;
};

/// A float linear layer quantized for 16x8 (int16 inputs QIn, int16 outputs QOut) with the weight scales `scales` (by
/// default `weight_scales<Granularity>(l.weight)`): each weight round(w / scale_c) clamped to [-127, 127] (the
/// division in float32 for float weights and float32 scales, as TFLite's), each bias round(b / (QIn.scale() x
/// scale_c)) in int64 (ties away from zero).
///
/// Example:
/// \code
///   constexpr auto head16 = ctattn::quantize_linear<q_in16, q_out16, std::int16_t>(head);
///   constexpr auto tensor16 = ctattn::quantize_linear<q_in16, q_out16, std::int16_t,
///                                                     ctattn::weight_granularity::per_tensor>(head);
/// \endcode
template <quantization QIn, quantization QOut, std::same_as<std::int16_t> Activations,
          weight_granularity Granularity = weight_granularity::per_channel, typename T, auto In, auto Out, bool HasBias,
          std::size_t S>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l,
                                             const channel_scales<S>& scales) noexcept {
  using result = q16linear<In, Out, QIn, QOut, Granularity>;
  if constexpr (!shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                   count<result::scale_count>>::check()) {
    return result{};
  } else {
    constexpr std::size_t outputs = extent_size(Out);
    constexpr std::size_t inputs = extent_size(In);
    std::int8_t int8_weights[outputs][inputs]{};
    std::int64_t int64_biases[outputs]{};
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      const double scale = scales[result::scale_count == 1 ? 0 : channel];
      for (std::size_t input = 0; input < inputs; ++input) {
        const std::int64_t rounded = detail::rounded_quotient(l.weight.elements[channel][input], scale);
        int8_weights[channel][input] =
            static_cast<std::int8_t>(rounded < -127 ? -127 : (rounded > 127 ? 127 : rounded));
      }
      if constexpr (HasBias) {
        const double bias_scale = detail::input_weight_scale<Granularity>(QIn.scale(), scale);
        int64_biases[channel] =
            detail::saturated_round_away<62>(static_cast<double>(l.bias.elements[0][channel]) / bias_scale);
      }
    }
    return result{int8_weights, int64_biases, scales};
  }
}

/// \copydoc quantize_linear
template <quantization QIn, quantization QOut, std::same_as<std::int16_t> Activations,
          weight_granularity Granularity = weight_granularity::per_channel, typename T, auto In, auto Out, bool HasBias>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l) noexcept {
  return quantize_linear<QIn, QOut, Activations, Granularity>(l, weight_scales<Granularity>(l.weight));
}

namespace detail {
// The quantized form of a float linear layer for activations of format F: `quantize_linear<QIn, QOut,
// std::int16_t, Granularity>` (16x8, int8 weights) or `quantize_linear<QIn, QOut, Weights, Granularity>`.
// Rationale: the one layer whose two forms take different arguments (int8's a weight format, 16x8's none), so the
// one quantizing function with a dispatcher; the others take the activations' element type (`Value`) as their third
// argument, int8's the default.
template <activation_format F, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity, typename Linear>
[[nodiscard]] constexpr auto quantize_linear_as(const Linear& l) noexcept {
  if constexpr (F == activation_format::int16) {
    return quantize_linear<QIn, QOut, std::int16_t, Granularity>(l);
  } else {
    return quantize_linear<QIn, QOut, Weights, Granularity>(l);
  }
}

template <typename X, typename L>
using int16_projection_rules =
    rule_list<shape_error::inner_dimensions_must_match<op::quantized_projection, dim_of<X::column_extent>,
                                                       dim_of<L::input_extent>>,
              shape_error::input_quantization_must_match_layer<op::quantized_projection, typename X::quantization_type,
                                                               quantization_constant<L::input_quantization>>>;
}  // namespace detail

/// y = x W^T + b in 16x8: for each output channel c, the int64 sum of x w_c plus the int64 bias, times the channel's
/// multiplier reduced to 16 bits, clamped to int16 (TensorFlow Lite Micro's 16x8 FULLY_CONNECTED, bit for bit).
///
/// | operand | shape                                   |
/// |---------|-----------------------------------------|
/// | `x`     | `q16matrix<n, In, QIn>`                 |
/// | `layer` | `q16linear<In, Out, QIn, QOut, Granularity>` |
/// | result  | `q16matrix<n, Out, QOut>`               |
///
/// Rules: x's width is In (`inner_dimensions_must_match`), x is quantized as the layer expects
/// (`input_quantization_must_match_layer`).
template <Quantized16Matrix X, auto In, auto Out, quantization QIn, quantization QOut, weight_granularity Granularity>
[[nodiscard]] constexpr auto project(const X& x, const q16linear<In, Out, QIn, QOut, Granularity>& layer) noexcept
    -> basic_q16matrix<X::row_extent, q16linear<In, Out, QIn, QOut, Granularity>::output_extent, QOut> {
  using L = q16linear<In, Out, QIn, QOut, Granularity>;
  basic_q16matrix<X::row_extent, L::output_extent, QOut> y;
  if constexpr (detail::first_broken<detail::int16_projection_rules<X, L>>::check()) {
    detail::kernels::int16_fully_connected(x.elements, layer.weight, layer.bias, layer.multipliers, y.elements);
  }
  return y;
}

/// `project(x, layer)` with an int8 x and a 16x8 layer, or an int16 x and an int8 layer: refused at compile time
/// (`quantized_operands_must_have_one_width`), with the conversion to write.
///
/// Example: `ctattn::project(ctattn::quantize<q_in16, std::int16_t>(x8), head16)` rather than
/// `ctattn::project(x8, head16)`.
template <QuantizedMatrix X, auto In, auto Out, quantization QIn, quantization QOut, weight_granularity Granularity>
constexpr auto project(const X&, const q16linear<In, Out, QIn, QOut, Granularity>&) noexcept {
  using L = q16linear<In, Out, QIn, QOut, Granularity>;
  static_assert((shape_error::quantized_operands_must_have_one_width<op::quantized_projection, X, L>::check(), true));
  return basic_q16matrix<X::row_extent, L::output_extent, QOut>{};
}

/// \copydoc project(const X&, const q16linear<In, Out, QIn, QOut, Granularity>&)
template <Quantized16Matrix X, auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity>
constexpr auto project(const X&, const qlinear<In, Out, QIn, QOut, Weights, Granularity>&) noexcept {
  using L = qlinear<In, Out, QIn, QOut, Weights, Granularity>;
  static_assert((shape_error::quantized_operands_must_have_one_width<op::quantized_projection, X, L>::check(), true));
  return basic_qmatrix<X::row_extent, L::output_extent, QOut>{};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_Q16LINEAR_HPP
