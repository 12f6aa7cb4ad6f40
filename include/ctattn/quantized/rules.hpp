// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_RULES_HPP
#define CTATTN_QUANTIZED_RULES_HPP

/// \file
/// The rules of the quantized tier (ctattn/shape/rule.hpp says how a rule is defined once and used three ways):
///
/// | rule                                  | what it compares                                               |
/// |---------------------------------------|----------------------------------------------------------------|
/// | `scale_must_be_positive`              | `quantization_constant<Q>`                                     |
/// | `zero_point_must_fit_int8`            | `quantization_constant<Q>`                                     |
/// | `int8_accumulator_must_not_overflow`  | `count<K>` (the summed length), `count<33025>` (the most int32 holds) |
/// | `input_quantization_must_match_layer` | the input's `quantization_constant`, the layer's                |
/// | `int8_mask_must_hide_keys`            | the mask's type                                                 |
/// | `int8_cache_must_hold_the_projections_quantization` | the cache's key or value quantization, W_K's or W_V's output's |
/// | `int8_layer_norm_must_not_overflow`   | `count<C>` (the row's width), `count<16384>` (the widest that fits) |
/// | `rows_per_block_must_be_positive`     | `count<Rows>`, the rows per block an int8 feed-forward block was given |
/// | `int8_operation_needs_output_quantization` | both operands' types (an operator, or a product with no `Out`) |
/// | `int8_operands_must_both_be_int8`     | both operands' types (one int8 or int16, one float)             |
/// | `layer_needs_an_int8_form`            | the float layer `ctattn::quantize` has no int8 form for          |
/// | `int8_form_must_be_an_int8_layer`     | a layer of one's own, what its `int8_form(self, at)` returned (not an int8 layer) |
/// | `model_forward_must_be_its_members`   | the model whose `forward` is its own                              |
/// | `ranges_must_hold_every_member`       | the model, the first member (`point<'h', 'e', 'a', 'd'>`) the table lacks |
/// | `ranges_must_hold_every_point`        | the point in a layer the table lacks, whole (`layers.0.norm1`)  |
/// | `int8_link_needs_its_float_links`     | the float links' types int8 link J is made of, the types given  |
/// | `weight_override_must_name_a_layer`   | the model, the override's path (`point<'h', 'e', 'd'>`) that names none of its layers with linear weights or a 16x8 form |
/// | `layer_weights_must_have_its_format`  | the weight type an int8 layer holds, the type given (int8 or int4 weights, or another shape) |
/// | `weight_scales_must_match_granularity`| `count<S>` (the scales given), `count<N>` (the layer's: Out per channel, 1 per tensor) |
/// | `int16_zero_point_must_be_zero`       | `quantization_constant<Q>` of an int16 matrix                   |
/// | `int16_scales_must_suit_the_kernel`   | the operation, its inputs' and output's `quantization_constant`s |
/// | `quantized_operands_must_have_one_width` | both operands' types (one int8, one int16)                   |
/// | `int16_softmax_is_tflites`            | whether the method given is `softmax_method::tflite`            |
/// | `int16_activations_take_int8_weights` | the layer's `weight_format_constant` and `activation_format_constant` |
/// | `int16_layer_has_no_decoding_step`    | the layer's `activation_format` (`activation_format_constant`)  |
/// | `layer_needs_a_16x8_form`             | the model, the path of the override asking for 16x8 a layer without a 16x8 form |

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/quantized/quantization.hpp"
#include "ctattn/quantized/weights.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

namespace op {
/// Declaring a quantized matrix (its quantization is checked).
struct quantized_matrix {};
/// A product of quantized matrices.
struct quantized_multiply {};
/// An int8 linear layer applied to int8 rows.
struct quantized_projection {};
/// Declaring an int16 matrix (its quantization is checked).
struct int16_matrix {};
/// A product of int16 matrices (TFLite's 16x8 BATCH_MATMUL).
struct int16_multiply {};
/// The element-wise sum of int16 matrices (TFLite's int16 ADD).
struct int16_add {};
/// The element-wise product of int16 matrices (TFLite's int16 MUL).
struct int16_hadamard {};
/// The int16 softmax of each row (TFLite's int16 SOFTMAX).
struct int16_softmax {};
/// A conversion between int8 and int16 (TFLite's QUANTIZE between quantized tensors).
struct int16_conversion {};
/// Scaled dot-product attention of int16 queries, keys and values (16x8).
struct int16_attention {};
/// Multi-head attention on int16 rows with 16x8 projections.
struct int16_multi_head_attention {};
/// The element-wise sum of int8 matrices.
struct quantized_add {};
/// The element-wise product of int8 matrices.
struct quantized_hadamard {};
/// Scaled dot-product attention of int8 queries, keys and values.
struct quantized_attention {};
/// Multi-head attention on int8 rows with int8 projections.
struct quantized_multi_head_attention {};
/// An int8 activation (a table lookup) applied to an int8 matrix.
struct quantized_activation {};
/// Int8 layer normalization of each row.
struct quantized_layer_norm {};
/// An int8 encoder layer's feed-forward block (`feed_forward<Rows>(h)`).
struct quantized_feed_forward {};
/// An int8 transformer decoder layer (its masks name their attention).
struct quantized_decoder_layer {};
/// Recording the ranges of a float model's activations (`ctattn::record_ranges`).
struct record_ranges {};
/// Quantizing a whole float model (`ctattn::quantize<Ranges>(model)`).
struct quantize {};
/// Calling an int8 front-end layer: a class token, a pool.
struct quantized_front_end {};
/// Making one int8 link of a model from its float links (`ctattn::quantize_link<J, Ranges, M>(links...)`).
struct quantize_link {};
}  // namespace op

namespace shape_error {

/// `ctattn::quantize<Ranges>(model)` maps each float layer to its int8 form; a layer with none stops there. A layer
/// of one's own gives its int8 form by a friend `int8_form(self, at)` (ctattn/quantized/model.hpp, docs/layers.md).
template <typename Operation, typename Layer, bool HasForm>
struct layer_needs_an_int8_form {
  static constexpr bool holds = HasForm;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: ctattn::quantize has no int8 form of this layer (the layer below); a layer of your own "
                  "gives one by a friend int8_form(self, at) returning its int8 layer (docs/layers.md, \"A layer of "
                  "your own\"), or keep it in float and quantize the model's other parts with the quantize_* "
                  "functions");
    return holds;
  }
};

/// A layer of one's own gives its int8 form by a friend `int8_form(self, at)`, which returns the int8 layer that
/// `ctattn::quantize` puts in the int8 chain: it must have what the chain reads of every int8 layer, a static
/// constexpr `ctattn::quantization output_quantization` (the next layer's input quantization), `forward(x)` on int8
/// rows giving quantized rows, and a static `footprint_of<X>()` giving a `ctattn::footprint`. `Int8Form` is the type
/// it returned (for the ranges [-1, 1], the probe `quantize` runs before reading the table).
template <typename Operation, typename Layer, typename Int8Form, bool IsInt8Layer>
struct int8_form_must_be_an_int8_layer {
  static constexpr bool holds = IsInt8Layer;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: this layer's int8_form(self, at) returns no int8 layer (the layer and what it returned "
                  "below); return a type with a static constexpr ctattn::quantization output_quantization, a "
                  "forward(x) on int8 rows (a ctattn::qmatrix) giving quantized rows, and a static footprint_of<X>() "
                  "giving a ctattn::footprint (docs/layers.md, \"A layer of your own\")");
    return holds;
  }
};

/// `ctattn::quantize` and `ctattn::record_ranges` follow a model's members run in turn (the forward `ctattn::model`
/// derives); a model that declares a forward of its own (a residual around its members, a scale) would be calibrated
/// and quantized as another function, so it is refused (`ctattn::DerivedForward`).
template <typename Operation, typename Model, bool DerivesForward>
struct model_forward_must_be_its_members {
  static constexpr bool holds = DerivesForward;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: ctattn::quantize and ctattn::record_ranges follow a model's members run in turn, and this "
                  "model has a forward of its own; make its extra steps members (ctattn::residual around a "
                  "ctattn::sequential, say) and drop its forward, or quantize its parts with the quantize_* "
                  "functions");
    return holds;
  }
};

}  // namespace shape_error

/// A member's name as a type the diagnostics print legibly: `ctattn::point<'h', 'e', 'a', 'd'>`.
///
/// Example: `using head = ctattn::point<'h', 'e', 'a', 'd'>;`
template <char... Name>
struct point {};

namespace shape_error {

/// `ctattn::quantize<Ranges>(model)` reads every member's output range from `Ranges` (ctattn::record_ranges writes
/// one under each member's name), so a table without one of them was recorded for another model, or before this
/// one changed. `Member` is the first member the table lacks, as a `point`.
template <typename Operation, typename Model, typename Member, bool Holds>
struct ranges_must_hold_every_member {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the ranges table lacks a member of this model (it was recorded for another model, or "
                  "before this one changed); record it again with ctattn::record_ranges on this model (the rule "
                  "below names the model and the first member missing)");
    return holds;
  }
};

/// `ctattn::quantize<Ranges>(model)` reads the range of every point inside a layer as well (`layers.0.norm1`: the
/// names of ctattn/quantized/points.hpp under the layer's path, as ctattn::record_ranges writes them), so a table
/// that holds every member but lacks one of those was recorded before the model changed, or edited. `Point` is the
/// name the table lacks, whole.
template <typename Operation, typename Point, bool Holds>
struct ranges_must_hold_every_point {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the ranges table lacks a point inside a layer of this model (it was recorded before the "
                  "model changed, or edited); record it again with ctattn::record_ranges on this model (the rule "
                  "below names the point missing)");
    return holds;
  }
};

/// Int8 link J of a model is made from the float links it comes from, in order: `ctattn::link<K>(model)` for K from
/// `int8_link_first<J, M>`, `int8_link_span<J, M>` of them (two for a token embedding and its positions).
template <typename Operation, typename Expected, typename Given>
struct int8_link_needs_its_float_links {
  static constexpr bool holds = std::is_same_v<Expected, Given>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: quantize_link<J, Ranges, M> takes the float links int8 link J is made of, and these are "
                  "others; pass ctattn::link<K>(model) for K from int8_link_first<J, M>, int8_link_span<J, M> of them "
                  "(a token embedding and the positions right after it make one int8 link)");
    return holds;
  }
};

/// An int8 linear layer holds its weights in one format: `std::int8_t[Out][In]` for `weight_format::int8`,
/// `int4_weights<Out, In>` (two a byte) for `weight_format::int4`; weights of the other format, or of another shape,
/// are not converted.
template <typename Operation, typename Expected, typename Given>
struct layer_weights_must_have_its_format {
  static constexpr bool holds = std::is_same_v<Expected, Given>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: these weights are not the layer's kind: a qlinear with weight_format::int8 takes "
                  "std::int8_t[Out][In], one with weight_format::int4 takes int4_weights<Out, In>; pack int8 values "
                  "with int4_weights<Out, In>::from_values, or declare the layer with the weights' format");
    return holds;
  }
};

/// An int8 linear layer has one weight scale per output channel (`weight_granularity::per_channel`, the default) or
/// one for the whole matrix (`weight_granularity::per_tensor`): `channel_scales<Out>` or `channel_scales<1>`.
template <typename Operation, typename Given, typename Expected>
struct weight_scales_must_match_granularity {
  static constexpr bool holds = Given::value == Expected::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the layer takes one weight scale per output channel (channel_scales<Out>) or, per tensor, "
                  "one (channel_scales<1>), and another count was given; make them with "
                  "weight_scales<Granularity>(w, format), or declare the layer with the scales' granularity");
    return holds;
  }
};

/// A `layer_weights` override of `quantize_options` names a layer of the model whose options it sets, as the ranges
/// name it: a member, a sequential's element or a whole sequential, with linear weights or a 16x8 form; a path that
/// names none (a typo, a part inside a layer, whose linears take one format, or an embedding or pool, which keep
/// their own) would change nothing, silently.
template <typename Operation, typename Model, typename Path, bool Holds>
struct weight_override_must_name_a_layer {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer_weights override in quantize_options names no layer of the model with linear "
                  "weights or a 16x8 form (the path below); name a member (head), a sequential's element (layers.0) "
                  "or a whole sequential (layers), as the ranges name them: not a part inside a layer, nor an "
                  "embedding or pool, which keep their own");
    return holds;
  }
};

/// real = scale x (q - zero_point): the scale is a positive, finite number.
template <typename Operation, typename Quantization>
struct scale_must_be_positive {
  static constexpr bool holds = Quantization::value.scale() > 0.0 && Quantization::value.scale() < 1e300;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a quantization's scale must be a positive finite number (real = scale x (q - "
                  "zero_point)); take it from the tensor's range, (max - min) / 255 for int8");
    return holds;
  }
};

/// The zero point is the int8 value that stands for real 0, so it is an int8.
template <typename Operation, typename Quantization>
struct zero_point_must_fit_int8 {
  static constexpr bool holds = Quantization::value.zero_point >= -128 && Quantization::value.zero_point <= 127;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an int8 quantization's zero point must lie in [-128, 127] (it is the int8 value of real "
                  "0); choose a range that contains 0, or clamp the zero point");
    return holds;
  }
};

/// A product sums K terms of at most 255 x 255 into an int32: K <= 33025.
template <typename Operation, typename Length, typename Limit>
struct int8_accumulator_must_not_overflow {
  static constexpr bool holds = Length::value <= Limit::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an int8 product sums its K terms of up to 255 x 255 in an int32, which holds K <= 33025; "
                  "split the product along K and add the int32 partial sums in a wider type");
    return holds;
  }
};

/// A quantized layer's multipliers (int8 or 16x8) were derived for one input quantization; its input must have it.
template <typename Operation, typename InputQuantization, typename LayerQuantization>
struct input_quantization_must_match_layer {
  static constexpr bool holds = InputQuantization::value == LayerQuantization::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the quantized input has another scale or zero point than the layer was quantized for; "
                  "requantize the input, or quantize the layer for this input's quantization");
    return holds;
  }
};

/// An int8 result written into the caller's matrix: that matrix is quantized as the operation's result is (the
/// layer's multipliers were derived for that output quantization).
template <typename Operation, typename OutputQuantization, typename ResultQuantization>
struct output_quantization_must_match_result {
  static constexpr bool holds = OutputQuantization::value == ResultQuantization::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the int8 output matrix is quantized with another scale or zero point than the layer "
                  "produces; declare it with the layer's output quantization (the type of ctattn::project(x, layer))");
    return holds;
  }
};

/// An int8 key/value cache holds the rows W_K and W_V give, in their output quantizations: the attention's
/// multipliers were derived for them.
template <typename Operation, typename CacheQuantization, typename ProjectionQuantization>
struct int8_cache_must_hold_the_projections_quantization {
  static constexpr bool holds = CacheQuantization::value == ProjectionQuantization::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the int8 cache holds keys or values in another quantization than the attention's W_K or "
                  "W_V gives; declare the cache with their output quantizations (an int8 layer's `cache_type<N>`)");
    return holds;
  }
};

/// An int8 attention's mask hides keys (causal, padding, windows, boolean masks); it adds no real-valued bias to the
/// int8 scores, whose quantization has no room for it.
template <typename Operation, typename Mask>
struct int8_mask_must_hide_keys {
  static constexpr bool holds = !Mask::adds_bias;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: int8 attention takes masks that hide keys (causal, key padding, windows, boolean masks), "
                  "not an additive bias; add the bias in the float model, or express it as a boolean mask");
    return holds;
  }
};

/// Int8 and int16 LayerNorm hold each normalized value, at most sqrt(C - 1) in magnitude, with 24 fractional bits in
/// an int32: rows of C <= 16384 (ctattn/quantized/norm.hpp derives it).
template <typename Operation, typename Width, typename Limit>
struct int8_layer_norm_must_not_overflow {
  static constexpr bool holds = Width::value <= Limit::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: int8 and int16 LayerNorm hold each normalized value, up to sqrt(C - 1) in magnitude "
                  "(sqrt(C) for RMSNorm), with 24 fractional bits in an int32, which holds rows of C <= 16384 (16383 "
                  "for RMSNorm); normalize wider rows in float");
    return holds;
  }
};

/// An int8 encoder layer's feed-forward block runs its rows in blocks of Rows rows (`feed_forward<Rows>(h)`): a
/// block of no rows would run none.
template <typename Operation, typename Rows>
struct rows_per_block_must_be_positive {
  static constexpr bool holds = Rows::value >= 1;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the feed-forward block runs its rows in blocks of Rows rows (feed_forward<Rows>(h)), and "
                  "Rows = 0 would run none; give 1 or more, or leave Rows out for the target's default");
    return holds;
  }
};

/// Quantized matrices, int8 or int16, are added and multiplied by `ctattn::add<Out>(a, b)` and
/// `ctattn::multiply<Out>(a, b)`: the result needs a quantization of its own, which an operator (`a + b`, `a * b`) or
/// the float `multiply(a, b)` has no way to take. Never holds: the operators and overloads that check it exist only to
/// say so. (Its name predates the int16 tier, which it guards as well.)
template <typename Operation, typename A, typename B>
struct int8_operation_needs_output_quantization {
  static constexpr bool holds = sizeof(A) == 0 && sizeof(B) == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: quantized matrices (int8 or int16) are added and multiplied by ctattn::add<Out>(a, b) "
                  "and ctattn::multiply<Out>(a, b), which take the result's quantization Out; an operator cannot "
                  "take it, so name the function and give Out");
    return holds;
  }
};

/// A quantized operation (int8 or int16) takes quantized operands only: a float operand is quantized first
/// (`ctattn::quantize<Q>(x)`, `ctattn::quantize<Q, std::int16_t>(x)`), or the quantized one dequantized
/// (`ctattn::dequantize(q)`) to compute in float. Never holds (see above).
template <typename Operation, typename A, typename B>
struct int8_operands_must_both_be_int8 {
  static constexpr bool holds = sizeof(A) == 0 && sizeof(B) == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a quantized operation takes quantized operands only, and one operand here is a float "
                  "matrix; quantize it first (ctattn::quantize<Q>(x), or ctattn::quantize<Q, std::int16_t>(x) for "
                  "int16), or dequantize the quantized one to compute in float (ctattn::dequantize(q))");
    return holds;
  }
};

/// TFLite's 16x8 tensors are symmetric: an int16 quantization's zero point is 0 (TFLite's kernels refuse another),
/// which keeps every int16 product and sum free of offsets.
template <typename Operation, typename Quantization>
struct int16_zero_point_must_be_zero {
  static constexpr bool holds = Quantization::value.zero_point == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an int16 quantization's zero point must be 0 (TFLite's 16x8 tensors are symmetric); take "
                  "the scale from the largest magnitude, max |x| / 32767, and zero point 0");
    return holds;
  }
};

/// TFLite's 16x8 kernels take scales for which their fixed-point steps cannot overflow: an int16 sum's output scale
/// above 2 max(a_scale, b_scale) / 32768 (its multiplier below 1), an int16 element-wise product's above a_scale
/// b_scale, an int16 product's above a_scale b_scale / 128, a softmax's input scale below 5 (its differences, up to
/// 65535, times 2^15 at most), a conversion's in_scale / out_scale below 2^15. TFLite refuses the model; here the rule stops the build. `Scales` lists the
/// operation's input and output quantizations.
template <typename Operation, bool Holds, typename... Scales>
struct int16_scales_must_suit_the_kernel {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: TFLite's 16x8 arithmetic cannot take these scales (the operation and quantizations "
                  "below): an int16 add needs out_scale > 2 max(a_scale, b_scale) / 32768, hadamard out_scale > "
                  "a_scale b_scale, multiply out_scale > a_scale b_scale / 128, softmax an input scale below 5, a "
                  "conversion in_scale / out_scale below 2^15; "
                  "choose a larger output scale (or a smaller input one)");
    return holds;
  }
};

/// 16x8 attention's softmax is TFLite's int16 SOFTMAX (two tables, read with interpolation): `softmax_method::tflite`
/// names it; `softmax_method::rounded`, ctattn's int8 softmax, has no int16 form.
template <typename Operation, bool Holds>
struct int16_softmax_is_tflites {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: 16x8 attention's softmax is TFLite's int16 SOFTMAX, and softmax_method::rounded (ctattn's "
                  "int8 softmax) has no int16 form; give softmax_method::tflite, or no method");
    return holds;
  }
};

/// An operation takes operands of one width: both int8 or both int16. The int8 one is brought to int16 (or back)
/// by `ctattn::quantize<Q, std::int16_t>(q)` (`ctattn::quantize<Q>(q16)`), TFLite's QUANTIZE between the widths.
/// Never holds: the overloads that check it exist only to say so.
template <typename Operation, typename A, typename B>
struct quantized_operands_must_have_one_width {
  static constexpr bool holds = sizeof(A) == 0 && sizeof(B) == 0;
  static constexpr bool check() noexcept {
    static_assert(
        holds,
        "ctattn: one operand is int8 and the other int16 (a 16x8 layer takes int16 inputs), and a quantized "
        "operation takes one width; convert one with ctattn::quantize<Q, std::int16_t>(q8) or ctattn::quantize<Q>(q16) (TFLite's "
        "QUANTIZE between int8 and int16)");
    return holds;
  }
};

/// A weight format as a type, for diagnostics.
template <weight_format F>
struct weight_format_constant {
  static constexpr weight_format value = F;
};
/// An activation format as a type, for diagnostics.
template <activation_format F>
struct activation_format_constant {
  static constexpr activation_format value = F;
};

/// A 16x8 layer's weights are int8: TFLite's 16x8 mode has int8 weights only, and ctattn's int16 products
/// (`q16linear`) take no int4 weights.
template <typename Operation, typename Weights, typename Activations>
struct int16_activations_take_int8_weights {
  static constexpr bool holds = Weights::value == weight_format::int8 || Activations::value == activation_format::int8;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer with int16 activations (16x8) takes int8 weights, and this one was given int4 "
                  "weights; keep int4 weights with int8 activations, or give this layer weight_format::int8 (an "
                  "override in quantize_options: {\"path\", weight_format::int8, ..., activation_format::int16})");
    return holds;
  }
};

/// Decoding token by token (`step`, a KV cache of int8 keys and values) is the int8 layers'; a 16x8 layer runs
/// `forward` over the whole sequence.
template <typename Operation, typename Activations>
struct int16_layer_has_no_decoding_step {
  static constexpr bool holds = Activations::value == activation_format::int8;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: decoding token by token (step, with an int8 KV cache) needs int8 activations, and this "
                  "layer's are int16 (16x8); run forward over the sequence, or quantize the layer with "
                  "activation_format::int8");
    return holds;
  }
};

/// An override that asks `ctattn::quantize` for a layer in 16x8 (`activation_format::int16`) names a layer with a
/// 16x8 form: a linear layer, a LayerNorm or RMSNorm, an activation, an attention layer, a feed-forward block (plain
/// or gated), an encoder layer, a token embedding with its positions, a class token, learned positions, the class
/// token's pooling, a residual connection or a sequential (whose layers with a 16x8 form take it). The others (patch
/// embeddings, mean pooling, decoder layers) stay int8 in a 16x8 model, converted at their edges.
template <typename Operation, typename Model, typename Path, bool Holds>
struct layer_needs_a_16x8_form {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an override in quantize_options asks for a layer in 16x8 (activation_format::int16), and "
                  "ctattn has no 16x8 form of it (the path below); give it activation_format::int8, which a 16x8 "
                  "model converts to and from, or override a linear layer, norm, activation, attention, "
                  "feed-forward or encoder layer, residual connection or sequential");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {
/// The rules of declaring a quantized matrix with quantization Q.
template <quantization Q>
using quantization_rules =
    rule_list<shape_error::scale_must_be_positive<op::quantized_matrix, quantization_constant<Q>>,
              shape_error::zero_point_must_fit_int8<op::quantized_matrix, quantization_constant<Q>>>;

/// The rules of declaring an int16 matrix with quantization Q.
template <quantization Q>
using int16_quantization_rules =
    rule_list<shape_error::scale_must_be_positive<op::int16_matrix, quantization_constant<Q>>,
              shape_error::int16_zero_point_must_be_zero<op::int16_matrix, quantization_constant<Q>>>;
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_RULES_HPP
