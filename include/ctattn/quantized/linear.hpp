// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_LINEAR_HPP
#define CTATTN_QUANTIZED_LINEAR_HPP

/// \file
/// The int8 linear layer of TFLite's fully-connected operator with per-channel weights: int8 weights in PyTorch's
/// out x in layout, each output channel with its own symmetric scale, an int32 bias, and one fixed-point multiplier
/// per channel, all derived by the compiler from a float `ctattn::linear`.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `channel_scales<N>`                      | N positive scales (kept as the bits of doubles)               |
/// | `weight_scales(w)`                       | max \|w_c\| / 127 for each row c of an out x in weight          |
/// | `qlinear<In, Out, QIn, QOut>`            | the int8 layer: int8 `weight`, int32 `folded_bias`, per-channel `multipliers` |
/// | `qlinear<In, Out, QIn, QOut, Weights, Granularity>` | the same with int4 weights (`weight_format::int4`), or one scale and multiplier (`weight_granularity::per_tensor`) |
/// | `quantize_linear<QIn, QOut>(l[, scales])`| a float `linear<float, In, Out, out_by_in, HasBias>` quantized |
/// | `project(x, layer)`                      | y = x W^T + b: `qmatrix<n, In, QIn>` to `qmatrix<n, Out, QOut>` |
/// | `project_into(y, x, layer)`              | the same into the caller's `qmatrix<n, Out, QOut>`              |
///
/// Example:
/// \code
///   constexpr auto q_in = ctattn::quantization_for_range(ctattn::observed_range(calibration_inputs));
///   constexpr auto q_out = ctattn::quantization_for_range(ctattn::observed_range(calibration_outputs));
///   constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);   // scales: weight_scales(head.weight)
///   const auto y = ctattn::project(ctattn::quantize<q_in>(x), head_q);
/// \endcode

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/attention/projection.hpp"
#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int4.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/weights.hpp"

namespace ctattn {

namespace detail {
// The input's scale times a weight scale as TFLite takes it for a layer of this granularity, once for the
// multipliers and the biases: per tensor as GetQuantizedConvolutionMultipler does (`scale_product`: in float32 when
// both are float32 values, as BATCH_MATMUL's), per channel exact in double (PerChannelQuantize's).
template <weight_granularity Granularity>
[[nodiscard]] constexpr double input_weight_scale(double input_scale, double weight_scale) noexcept {
  if constexpr (Granularity == weight_granularity::per_tensor) {
    return scale_product(input_scale, weight_scale);
  } else {
    return input_scale * weight_scale;
  }
}
}  // namespace detail

/// The symmetric scales of N output channels (zero point 0), as the bits of doubles (a structural type, so usable as
/// a template argument too).
///
/// Example: `constexpr ctattn::channel_scales<2> s{{0.01, 0.02}}; static_assert(s[1] == 0.02);`
template <std::size_t N>
struct channel_scales {
  std::uint64_t bits[N]{};

  constexpr channel_scales() noexcept = default;
  constexpr explicit channel_scales(const double (&scales)[N]) noexcept {
    for (std::size_t c = 0; c < N; ++c) bits[c] = std::bit_cast<std::uint64_t>(scales[c]);
  }
  /// From float32 scales, as a .tflite file stores a per-channel quantization's (each kept exactly).
  constexpr explicit channel_scales(const float (&scales)[N]) noexcept {
    for (std::size_t c = 0; c < N; ++c) bits[c] = std::bit_cast<std::uint64_t>(static_cast<double>(scales[c]));
  }
  [[nodiscard]] constexpr double operator[](std::size_t c) const noexcept { return std::bit_cast<double>(bits[c]); }
  friend constexpr bool operator==(const channel_scales&, const channel_scales&) = default;
};

/// The symmetric scales of an out x in weight matrix (PyTorch's layout): per channel (the default), max |w_c| / 127
/// for each row c (max |w_c| / 7 for `weight_format::int4`, TFLite's int4 range), 1 for a row of zeros; per tensor
/// (`weight_granularity::per_tensor`), one scale, max |w| / 127 (or / 7) over the whole matrix.
///
/// Example: `constexpr auto scales = ctattn::weight_scales(layer.weight, ctattn::weight_format::int4);`
template <weight_granularity Granularity = weight_granularity::per_channel, FixedMatrix W>
[[nodiscard]] constexpr auto weight_scales(const W& w, weight_format format = weight_format::int8) noexcept {
  constexpr bool per_tensor = Granularity == weight_granularity::per_tensor;
  const double steps = format == weight_format::int4 ? 7.0 : 127.0;
  channel_scales<per_tensor ? 1 : W::rows> scales{};
  double tensor_largest = 0.0;
  for (std::size_t c = 0; c < W::rows; ++c) {
    double largest = 0.0;
    for (std::size_t k = 0; k < W::cols; ++k) {
      const double magnitude =
          w.elements[c][k] < 0 ? -static_cast<double>(w.elements[c][k]) : static_cast<double>(w.elements[c][k]);
      largest = magnitude > largest ? magnitude : largest;
    }
    if constexpr (per_tensor) {
      tensor_largest = largest > tensor_largest ? largest : tensor_largest;
    } else {
      scales.bits[c] = std::bit_cast<std::uint64_t>(largest > 0.0 ? largest / steps : 1.0);
    }
  }
  if constexpr (per_tensor)
    scales.bits[0] = std::bit_cast<std::uint64_t>(tensor_largest > 0.0 ? tensor_largest / steps : 1.0);
  return scales;
}

/// An int8 linear layer, y = x W^T + b, for inputs quantized with QIn and outputs with QOut: weights int8 with one
/// symmetric scale per output channel (zero point 0), the bias int32 with scale QIn.scale() x scale_c (zero point
/// 0), and each channel's fixed-point multiplier QIn.scale() x scale_c / QOut.scale(), which the constructor derives
/// from the scales (TFLite stores the same per-channel multipliers and shifts with its weights).
///
/// | member / operand | shape / meaning                                                   |
/// |------------------|-------------------------------------------------------------------|
/// | `weight`         | Out x In int8 (PyTorch's layout), or `int4_weights<Out, In>` for `weight_format::int4` |
/// | `weight_value(c, k)` | weight (c, k) in either format                                |
/// | `folded_bias`    | Out int32: the bias less QIn's zero point times the channel's weight sum |
/// | `bias(c)`        | TFLite's int32 bias of channel c                                  |
/// | `multipliers`    | `scale_count` `math::quantized_multiplier`s (Out, or 1 per tensor), derived from QIn, QOut and the weight scales |
///
/// Rationale: the bias is kept folded, b_c - z_in sum_k w_ck, computed here by the compiler for a constexpr layer:
/// then sum_k (x_k - z_in) w_ck + b_c = sum_k x_k w_ck + folded_bias_c, and the kernel multiplies the raw int8 inputs
/// (16 per `vmladava.s8` on Helium, with no widening or zero-point subtraction), where a run-time library sums the
/// weights at start-up into a RAM buffer. The sums wrap modulo 2^32, exact wherever TFLite's int32 sum is defined.
/// Rationale: the multipliers are data, computed once where the layer is made (by the compiler, for a constexpr
/// layer), rather than template arguments, so that a model's many layers need no scales in their types; they are
/// set by the constructor only, so that weights and scales cannot disagree with them. The scales themselves are not
/// kept: inference never reads them, and a firmware image would carry 8 bytes of flash per channel for nothing.
///
/// With `weight_format::int4` (Weights) the weights are int4, two a byte in TFLite's packing (`int4_weights`):
/// half the flash, the same arithmetic on their values (TFLite's int8 fully-connected after it unpacks them). With
/// `weight_granularity::per_tensor` (Granularity) the weights have one scale (`channel_scales<1>`) and the layer one
/// multiplier, TFLite's per-tensor FULLY_CONNECTED's: s_in s_w in float32 when both are float32 values, then divided
/// by s_out in double (the only form TFLite Micro and CMSIS-NN take for int4 weights).
///
/// Example:
/// \code
///   constexpr ctattn::qlinear<2, 1, q_in, q_out> layer{{{64, -127}}, {10}, ctattn::channel_scales<1>{{0.01}}};
///   constexpr auto y = ctattn::project(x_q, layer);    // x_q: qmatrix<n, 2, q_in>
///   constexpr ctattn::qlinear<2, 1, q_in, q_out, ctattn::weight_format::int4> small{
///       ctattn::int4_weights<1, 2>::from_values({{7, -7}}), {10}, ctattn::channel_scales<1>{{0.18}}};
///   constexpr ctattn::qlinear<2, 2, q_in, q_out, ctattn::weight_format::int4, ctattn::weight_granularity::per_tensor>
///       tensor{ctattn::int4_weights<2, 2>::from_values({{7, -7}, {1, 2}}), {10, 0}, ctattn::channel_scales<1>{{0.18}}};
/// \endcode
// The 16x8 layer (ctattn/quantized/q16linear.hpp), declared, so that the int8 operations can tell its projections
// from an int8 layer's.
template <auto In, auto Out, quantization QIn, quantization QOut, weight_granularity Granularity>
struct q16linear;

namespace detail {
// Whether L is a 16x8 layer (`q16linear`): a projection of int16 rows.
template <typename L>
inline constexpr bool is_q16linear = false;
template <auto In, auto Out, quantization QIn, quantization QOut, weight_granularity Granularity>
inline constexpr bool is_q16linear<q16linear<In, Out, QIn, QOut, Granularity>> = true;
}  // namespace detail

template <auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel>
struct qlinear {
  static_assert((detail::first_broken<detail::quantization_rules<QIn>>::check(), true));
  static_assert((detail::first_broken<detail::quantization_rules<QOut>>::check(), true));
  static constexpr auto input_extent = normalize_extent<In>;
  static constexpr auto output_extent = normalize_extent<Out>;
  static constexpr std::size_t inputs = extent_size(In);
  static constexpr std::size_t outputs = extent_size(Out);
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  static constexpr weight_format format = Weights;
  static constexpr weight_granularity granularity = Granularity;
  static constexpr bool int4 = Weights == weight_format::int4;
  /// Its activations are int8 (`q16linear` is the 16x8 one).
  static constexpr bool int16 = false;
  /// The weight scales and multipliers the layer has: one per output channel, or one.
  static constexpr std::size_t scale_count = Granularity == weight_granularity::per_tensor ? 1 : outputs;

  /// The weights' type: `std::int8_t[Out][In]`, or `int4_weights<Out, In>` for `weight_format::int4`.
  using weight_type = std::conditional_t<int4, int4_weights<outputs, inputs>, std::int8_t[outputs][inputs]>;

  weight_type weight{};
  std::int32_t folded_bias[outputs]{};
  math::quantized_multiplier multipliers[scale_count]{};
  /// The same weights, folded biases, multipliers and output zero point packed for this build's int8
  /// fully-connected kernel (kernels/detail/int8_packed.hpp: AVX-512 VNNI, AVX-VNNI, AArch64 `sdot`), made by the
  /// constructor; on the Cortex-M DSP and Helium, one word: whether every multiplier is a `short_multiplier` (the
  /// kernels then requantize without testing each); empty on every other target.
  // Rationale: packed where the layer is made, by the compiler for a constexpr layer, so that the kernel reads the
  // layout its instruction wants and nothing is summed or reordered at run time. The members are public for
  // reading (and for structural types); a layer changed member by member after it is made would leave `packed`
  // behind, so layers are made by the constructor or `quantize_linear`.
  [[no_unique_address]] std::conditional_t<int4, detail::int8_packed::no_packed_weights,
                                           detail::kernels::int8_packed_weights<outputs, inputs>> packed{};

  /// All weights and biases 0 (every output is QOut's zero point).
  constexpr qlinear() noexcept = default;

  /// The layer of these int8 weights, int32 biases and weight scales (per channel, or one per tensor).
  constexpr qlinear(const std::int8_t (&int8_weights)[outputs][inputs], const std::int32_t (&int32_biases)[outputs],
                    const channel_scales<scale_count>& weight_scale) noexcept
    requires(!int4)
  {
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      for (std::size_t input = 0; input < inputs; ++input) weight[channel][input] = int8_weights[channel][input];
    }
    derive(int32_biases, weight_scale);
  }

  /// The layer of these int4 weights (`weight_format::int4`), int32 biases and weight scales.
  constexpr qlinear(const int4_weights<outputs, inputs>& int4_packed_weights,
                    const std::int32_t (&int32_biases)[outputs],
                    const channel_scales<scale_count>& weight_scale) noexcept
    requires(int4)
      : weight(int4_packed_weights) {
    derive(int32_biases, weight_scale);
  }

  /// Weights of another format or shape, or scales of another count (`channel_scales<Out>` per channel, one per
  /// tensor): not a layer; the build stops with the broken rule's sentence (`layer_weights_must_have_its_format`,
  /// `weight_scales_must_match_granularity`).
  // Rationale: a template, so that a braced list of weights never reaches it (nothing is deduced from one); a
  // mistake then names what is wrong rather than listing the constructors that do not match.
  template <typename W, std::size_t S>
    requires(!std::is_same_v<W, weight_type>)
  constexpr qlinear(const W&, const std::int32_t (&)[outputs], const channel_scales<S>&) noexcept {
    static_assert(
        (detail::first_broken<
             rule_list<shape_error::layer_weights_must_have_its_format<op::quantized_projection, weight_type, W>,
                       shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                         count<scale_count>>>>::check(),
         true));
  }
  /// The same for the layer's weights (or a braced list of them) with scales of another count.
  template <std::size_t S>
    requires(S != scale_count)
  constexpr qlinear(const weight_type&, const std::int32_t (&)[outputs], const channel_scales<S>&) noexcept {
    static_assert((shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                     count<scale_count>>::check(),
                   true));
  }

  /// Weight (c, k): `weight[c][k]`, or the int4 value (c, k).
  [[nodiscard]] constexpr std::int32_t weight_value(std::size_t c, std::size_t k) const noexcept {
    if constexpr (int4) {
      return weight(c, k);
    } else {
      return weight[c][k];
    }
  }

  /// The int32 bias of channel c as TFLite stores it: folded_bias[c] + QIn's zero point times the channel's weight
  /// sum.
  [[nodiscard]] constexpr std::int32_t bias(std::size_t c) const noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(folded_bias[c]) +
                                     static_cast<std::uint32_t>(QIn.zero_point * weight_sum(c)));
  }

  /// sum_k weight[c][k] (at most 127 x 33025 in magnitude).
  [[nodiscard]] constexpr std::int32_t weight_sum(std::size_t c) const noexcept {
    std::int32_t sum = 0;
    for (std::size_t k = 0; k < inputs; ++k) sum += weight_value(c, k);
    return sum;
  }

 private:
  // The folded biases, multipliers and packed copy of the weights already set.
  constexpr void derive(const std::int32_t (&int32_biases)[outputs],
                        const channel_scales<scale_count>& weight_scale) noexcept {
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      folded_bias[channel] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(int32_biases[channel]) -
                                    static_cast<std::uint32_t>(QIn.zero_point * weight_sum(channel)));
    }
    for (std::size_t s = 0; s < scale_count; ++s) {
      multipliers[s] = math::quantize_multiplier(detail::input_weight_scale<Granularity>(QIn.scale(), weight_scale[s]) /
                                                 QOut.scale());
    }
    if constexpr (!int4) {
      math::quantized_multiplier each[outputs]{};
      for (std::size_t channel = 0; channel < outputs; ++channel)
        each[channel] = multipliers[scale_count == 1 ? 0 : channel];
      packed = detail::kernels::int8_packed_weights<outputs, inputs>{weight, folded_bias, each, QOut.zero_point};
    }
  }

 public:
  /// `ctattn::project(x, *this)`: the call of the layer protocol (ctattn/layers/layer.hpp), so that an int8 model
  /// chains it as a float one chains `ctattn::linear`.
  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(x, *this);
  }

  /// The memory of `project(x, layer)` on an X (ctattn::footprint, as the float layers give theirs): the layer's
  /// object (weights, folded biases, multipliers, and the packed copy on a build with a packed kernel, or the word
  /// of `packed` on the Cortex-M DSP and Helium: flash when constexpr), X and the result, and on the stack the product kernel's scratch on any backend
  /// (`detail::kernels::int8_product_stack_bytes`: one int32 per output channel on x86 and NEON, or the packed
  /// kernel's staged rows of X, up to 8 of In bytes; the rows of X widened to int16 in blocks of up to 6 on the
  /// Cortex-M DSP); with int4 weights, a block of output channels unpacked to int8 too
  /// (`detail::kernels::int4_product_stack_bytes`).
  ///
  /// Example: `static_assert(ctattn::qlinear<32, 64, q_in, q_out>::footprint_of<x_type>().weight_bytes == 32 * 64 + 64 * 12);`
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t stack = int4 ? detail::kernels::int4_product_stack_bytes<X::rows, inputs, outputs>
                                       : detail::kernels::int8_product_stack_bytes<X::rows, inputs, outputs>;
    return {sizeof(qlinear), sizeof(X), sizeof(basic_qmatrix<X::row_extent, output_extent, QOut>), 0, stack};
  }

  friend constexpr bool operator==(const qlinear&, const qlinear&) = default;
};

/// A float linear layer (PyTorch's out x in weights, with or without bias) quantized for inputs QIn and outputs
/// QOut, with the weight scales `scales` (by default `weight_scales<Granularity>(l.weight, Weights)`): each weight
/// round(w / scale_c) clamped to [-127, 127] ([-7, 7] for `weight_format::int4`, TFLite's int4 range; the division
/// in float32 for float weights and float32 scales, as TFLite's PerChannelQuantize divides), each bias round(b /
/// (QIn.scale() x scale_c)) (ties away from zero; per tensor, the scales' product as `detail::scale_product` takes
/// it). Scales copied from a .tflite file: `channel_scales<N>{{0.0123f, ...}}` keeps each float32 exactly; per
/// tensor, `channel_scales<1>`.
///
/// Example:
/// \code
///   constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
///   constexpr auto head_q4 = ctattn::quantize_linear<q_in, q_out, ctattn::weight_format::int4>(head);   // half the flash
///   constexpr auto head_t4 = ctattn::quantize_linear<q_in, q_out, ctattn::weight_format::int4,
///                                                    ctattn::weight_granularity::per_tensor>(head);  // TFLite Micro's int4
/// \endcode
template <quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel, typename T, auto In, auto Out, bool HasBias,
          std::size_t S>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l,
                                             const channel_scales<S>& scales) noexcept {
  using result = qlinear<In, Out, QIn, QOut, Weights, Granularity>;
  if constexpr (!shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                   count<result::scale_count>>::check()) {
    return result{};
  } else {
    constexpr std::size_t outputs = extent_size(Out);
    constexpr std::size_t inputs = extent_size(In);
    constexpr std::int64_t largest = Weights == weight_format::int4 ? 7 : 127;
    std::int8_t int8_weights[outputs][inputs]{};
    std::int32_t int32_biases[outputs]{};
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      const double scale = scales[result::scale_count == 1 ? 0 : channel];
      for (std::size_t input = 0; input < inputs; ++input) {
        const std::int64_t rounded = detail::rounded_quotient(l.weight.elements[channel][input], scale);
        int8_weights[channel][input] =
            static_cast<std::int8_t>(rounded < -largest ? -largest : (rounded > largest ? largest : rounded));
      }
      if constexpr (HasBias) {
        const double bias_scale = detail::input_weight_scale<Granularity>(QIn.scale(), scale);
        int32_biases[channel] = static_cast<std::int32_t>(
            detail::round_away(static_cast<double>(l.bias.elements[0][channel]) / bias_scale));
      }
    }
    if constexpr (Weights == weight_format::int4) {
      return result{detail::int4_packing_of(int8_weights), int32_biases, scales};
    } else {
      return result{int8_weights, int32_biases, scales};
    }
  }
}

/// \copydoc quantize_linear
template <quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel, typename T, auto In, auto Out, bool HasBias>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l) noexcept {
  return quantize_linear<QIn, QOut, Weights, Granularity>(l, weight_scales<Granularity>(l.weight, Weights));
}

namespace detail {
// The layer's product of rows x (M x In int8) into rows y (M x Out int8), its weights read in their format: the
// kernel `project_into` runs once its rules hold, and int8 attention writing Q into its context's bytes.
template <std::size_t M, auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity>
constexpr void fully_connected_rows(const std::int8_t (&x)[M][extent_size(In)],
                                    const qlinear<In, Out, QIn, QOut, Weights, Granularity>& layer,
                                    std::int8_t (&y)[M][extent_size(Out)]) noexcept {
  if constexpr (Weights == weight_format::int4) {
    kernels::int4_fully_connected(x, layer.weight.packed, layer.folded_bias, layer.multipliers, QOut.zero_point, y);
  } else {
    kernels::int8_fully_connected(x, layer.weight, layer.folded_bias, layer.multipliers, QOut.zero_point, y,
                                  layer.packed);
  }
}

template <typename X, typename L>
using quantized_projection_rules = rule_list<
    shape_error::inner_dimensions_must_match<op::quantized_projection, dim_of<X::column_extent>,
                                             dim_of<L::input_extent>>,
    shape_error::input_quantization_must_match_layer<op::quantized_projection, typename X::quantization_type,
                                                     quantization_constant<L::input_quantization>>,
    shape_error::int8_accumulator_must_not_overflow<op::quantized_projection, count<L::inputs>, count<33025>>>;
template <typename Y, typename X, typename L>
using quantized_projection_into_rules = rule_list<
    quantized_projection_rules<X, L>, rows_rule<op::quantized_projection, Y, X>,
    shape_error::columns_must_match<op::quantized_projection, dim_of<Y::column_extent>, dim_of<L::output_extent>>,
    shape_error::output_quantization_must_match_result<op::quantized_projection, typename Y::quantization_type,
                                                       quantization_constant<L::output_quantization>>>;
}  // namespace detail

/// `ctattn::project` of an int8 layer (below) writing into `y`, the caller's storage: a static buffer in firmware,
/// or a matrix reused call after call (no result on the stack, no copy). Same rules and bits as `project`.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `y`     | `qmatrix<n, Out, QOut>` (overwritten) |
/// | `x`     | `qmatrix<n, In, QIn>`              |
/// | `layer` | `qlinear<In, Out, QIn, QOut, Weights, Granularity>` |
///
/// Rules: those of `project`; y has x's rows (`rows_must_match`), Out columns (`columns_must_match`) and QOut
/// (`output_quantization_must_match_result`).
///
/// Example:
/// \code
///   static constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
///   static ctattn::qmatrix<6, 1, q_out> y;   // .bss, not the stack
///   ctattn::project_into(y, x_q, head_q);
/// \endcode
template <QuantizedMatrix Y, QuantizedMatrix X, auto In, auto Out, quantization QIn, quantization QOut,
          weight_format Weights, weight_granularity Granularity>
constexpr void project_into(Y& y, const X& x, const qlinear<In, Out, QIn, QOut, Weights, Granularity>& layer) noexcept {
  using L = qlinear<In, Out, QIn, QOut, Weights, Granularity>;
  if constexpr (detail::first_broken<detail::quantized_projection_into_rules<Y, X, L>>::check()) {
    detail::fully_connected_rows(x.elements, layer, y.elements);
  }
}

/// y = x W^T + b in int8: for each output channel c, the int32 sum of (x - x_zero) w_c plus the bias, times the
/// channel's multiplier, plus QOut's zero point, clamped (TFLite's per-channel fully-connected). The same bits in
/// constant evaluation and at run time, on every target.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `x`     | `qmatrix<n, In, QIn>`              |
/// | `layer` | `qlinear<In, Out, QIn, QOut, Weights, Granularity>` (int8 or int4 weights, per channel or tensor) |
/// | result  | `qmatrix<n, Out, QOut>`            |
///
/// Rules: x's width is In (`inner_dimensions_must_match`), x is quantized as the layer expects
/// (`input_quantization_must_match_layer`), In <= 33025.
template <QuantizedMatrix X, auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity>
[[nodiscard]] constexpr auto project(const X& x,
                                     const qlinear<In, Out, QIn, QOut, Weights, Granularity>& layer) noexcept
    -> basic_qmatrix<X::row_extent, qlinear<In, Out, QIn, QOut, Weights, Granularity>::output_extent, QOut> {
  basic_qmatrix<X::row_extent, qlinear<In, Out, QIn, QOut, Weights, Granularity>::output_extent, QOut> y;
  project_into(y, x, layer);
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LINEAR_HPP
