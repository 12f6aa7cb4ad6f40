// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_TRANSFORMER_HPP
#define CTATTN_QUANTIZED_TRANSFORMER_HPP

/// \file
/// A small transformer in int8: the encoder layer (nn.TransformerEncoderLayer, pre-norm or
/// post-norm) quantized from the layers tier's float layers, every activation with its own quantization, all
/// chosen at compile time. Integers only at run time, the same bits in constant evaluation and on every target.
///
/// | entity                                            | what                                                  |
/// |---------------------------------------------------|-------------------------------------------------------|
/// | `encoder_layer_quantizations`                     | the quantization of each activation of one encoder layer |
/// | `encoder_layer_quantizations_for(ranges)`         | the same, chosen from the activations' calibrated ranges |
/// | `qtransformer_encoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>` | the int8 layer (16x8 where `Q.activations` is int16) |
/// | `quantize_encoder_layer<Q>(layer)`                | a float `transformer_encoder_layer` quantized         |
/// | `qtransformer_decoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>`, `quantize_decoder_layer<Q>(layer)` | the decoder layer in int8 |
///
/// Example:
/// \code
///   constexpr ctattn::encoder_layer_quantizations q0 = ctattn::encoder_layer_quantizations_for(ranges0);
///   constexpr auto layer0 = ctattn::quantize_encoder_layer<q0>(boost::hana::at_c<0>(model.layers.layers));
///   const auto y = layer0.forward(x_q);   // qmatrix<n, Width, q0.output>
/// \endcode

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/layers/detail/blocks.hpp"
#include "ctattn/layers/rules.hpp"
#include "ctattn/quantized/activation.hpp"
#include "ctattn/quantized/add.hpp"
#include "ctattn/quantized/attention.hpp"
#include "ctattn/quantized/calibrate.hpp"
#include "ctattn/quantized/kv_cache.hpp"
#include "ctattn/quantized/layer.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/norm.hpp"
#include "ctattn/quantized/points.hpp"
#include "ctattn/quantized/q16attention.hpp"
#include "ctattn/quantized/q16linear.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

// The float layers (ctattn/layers/), declared, not included.
// Rationale: the layers tier needs Boost.Hana and the core does not; quantizing reads the layers' members only, and
// their types are complete wherever a user names them.
template <typename T, auto DModel, std::size_t Heads, auto FeedForward, typename Activation, bool NormFirst,
          typename Mask, WeightLayout Layout>
struct transformer_encoder_layer;
template <typename T, auto DModel, std::size_t Heads, auto FeedForward, typename Activation, bool NormFirst,
          typename Mask, WeightLayout Layout>
struct transformer_decoder_layer;

namespace detail {
// The activations' element type of a layer of activation format F.
template <activation_format F>
using activation_value = std::conditional_t<F == activation_format::int16, std::int16_t, std::int8_t>;

// The steps of an int8 transformer layer L's residual blocks (ctattn/layers/detail/blocks.hpp), as the float layers':
// block k's LayerNorm, the k-th of `norms`, and the int8 ADD into `L::sum_quantization<k>`.
template <typename L, typename... Norms>
[[nodiscard]] constexpr auto int8_block_steps(const Norms&... norms) noexcept {
  return block_steps{[&norms...](auto at_block, const auto& in) {
                       return ctattn::normalize(in, block_member<decltype(at_block)::value>(norms...));
                     },
                     [](auto at_block, const auto& in, const auto& addend) {
                       return ctattn::add<L::template sum_quantization<decltype(at_block)::value>>(in, addend);
                     }};
}

// The sublayers the int8 encoder and decoder layers share, as residual_blocks runs them: the feed-forward block, and
// a decoding step's self-attention over the cache (its row written into `attended`, which it gives back).
template <typename Linear1, typename Activation, typename Linear2>
[[nodiscard]] constexpr auto int8_feed_forward(const Linear1& linear1, const Activation& activation,
                                               const Linear2& linear2) noexcept {
  return [&linear1, &activation, &linear2](const auto& in) {
    return project(activate(project(in, linear1), activation), linear2);
  };
}
template <quantization Scores, softmax_method Softmax, typename Weights, typename Cache, typename Row>
[[nodiscard]] constexpr auto int8_cached_self_attention(const Weights& weights, Cache& cache, Row& attended) noexcept {
  return [&weights, &cache, &attended](const auto& in) {
    (void)multi_head_attention_step<Scores, Softmax>(in, weights, cache, attended);
    return attended;
  };
}

// Quantizes a float feed-forward block's two linears and its activation into an int8 layer's `linear1`,
// `activation` and `linear2` (the encoder's and the decoder's), its input in `In`, Q the layer's quantizations.
template <quantization In, auto Q, typename Activation, typename Layer, typename FeedForward>
constexpr void quantize_feed_forward_into(Layer& q, const FeedForward& ff) noexcept {
  constexpr activation_format format = Layer::int16 ? activation_format::int16 : activation_format::int8;
  q.linear1 = quantize_linear_as<format, In, Q.hidden, Q.weights, Q.granularity>(ff.linear1);
  q.activation = quantize_activation<Q.hidden, Q.activation, activation_value<format>>(Activation{});
  q.linear2 = quantize_linear_as<format, Q.activation, Q.feed_forward, Q.weights, Q.granularity>(ff.linear2);
}

// The linear layer of a layer's activation format F: `q16linear` (16x8, int8 weights) or `qlinear`.
template <activation_format F, auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity>
using linear_of_format = std::conditional_t<F == activation_format::int16, q16linear<In, Out, QIn, QOut, Granularity>,
                                            qlinear<In, Out, QIn, QOut, Weights, Granularity>>;
}  // namespace detail

/// The quantization of every activation of one pre-norm encoder layer, in the order the layer computes them:
///
/// | member         | the activation                                   |
/// |----------------|--------------------------------------------------|
/// | `input`        | x, the layer's input                             |
/// | `norm1`        | LayerNorm(x)                                     |
/// | `query`, `key`, `value` | the projections of norm1                |
/// | `scores`       | Q K^T / sqrt(d_head), every head's               |
/// | `context`      | the heads' outputs side by side (W_O's input)    |
/// | `attention`    | the context times W_O                            |
/// | `sum1`         | x + attention                                    |
/// | `norm2`        | LayerNorm(sum1)                                  |
/// | `hidden`       | the first linear of the feed-forward block       |
/// | `activation`   | its activation (GELU, ReLU, ...)                 |
/// | `feed_forward` | the second linear                                |
/// | `output`       | sum1 + feed_forward, the layer's output          |
/// | `sum2`         | post-norm only: norm1 + feed_forward             |
/// | `softmax`      | not a point: the attention's `softmax_method`    |
/// | `weights`      | not a point: the six linears' `weight_format`    |
/// | `granularity`  | not a point: their `weight_granularity`          |
/// | `activations`  | not a point: the activations' `activation_format` (int8, or int16 for 16x8) |
///
/// In 16x8 (`activations` int16), every point is an int16 quantization (zero point 0,
/// `quantization_for_range(range, activation_format::int16)`), the linears are `q16linear`s with int8 weights, and
/// the attention's softmax is TFLite's int16 one (`softmax` must be `softmax_method::tflite`).
///
/// A post-norm layer (norm_first = false) runs x + attention(x), then `norm1`, then norm1 + feed_forward (`sum2`),
/// then its norm2, which is the layer's `output`: its `query`, `key` and `value` read `input`, its feed-forward
/// block reads `norm1`, and its norm2 gives `output` (the member `norm2` is not used).
///
/// A structural type: a template argument of `qtransformer_encoder_layer`.
// Rationale: the point fields it shares with decoder_layer_quantizations stay written in each: a shared base
// struct would stop `{.input = ..., .norm1 = ...}` (C++20 designated initializers cannot name a base's members)
// and would put the decoder's `memory` after its attention points, away from the order of its forward.
struct encoder_layer_quantizations {
  quantization input{1.0};
  quantization norm1{1.0};
  quantization query{1.0};
  quantization key{1.0};
  quantization value{1.0};
  quantization scores{1.0};
  quantization context{1.0};
  quantization attention{1.0};
  quantization sum1{1.0};
  quantization norm2{1.0};
  quantization hidden{1.0};
  quantization activation{1.0};
  quantization feed_forward{1.0};
  quantization output{1.0};
  quantization sum2{1.0};
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
  activation_format activations = activation_format::int8;

  friend constexpr bool operator==(const encoder_layer_quantizations&, const encoder_layer_quantizations&) = default;
};

/// The calibrated range of every activation of one encoder layer (the members of `encoder_layer_quantizations`).
struct encoder_layer_ranges {
  value_range input, norm1, query, key, value, scores, context, attention, sum1, norm2, hidden, activation,
      feed_forward, output;
  value_range sum2{};  // post-norm only
};

/// The quantizations of a layer chosen from its activations' ranges (`quantization_for_range(range, format)` for
/// each: TFLite's asymmetric int8 over the range widened to contain 0; for int16, symmetric over the larger
/// magnitude, with TFLite's int16 softmax).
///
/// Example: `constexpr auto q0 = ctattn::encoder_layer_quantizations_for(ranges);`
/// Example: `constexpr auto q16 = ctattn::encoder_layer_quantizations_for(ranges, ctattn::activation_format::int16);`
[[nodiscard]] constexpr encoder_layer_quantizations encoder_layer_quantizations_for(
    const encoder_layer_ranges& r, activation_format format = activation_format::int8) noexcept {
  const auto q = [format](value_range range) { return quantization_for_range(range, format); };
  encoder_layer_quantizations result{q(r.input),  q(r.norm1),      q(r.query),        q(r.key),    q(r.value),
                                     q(r.scores), q(r.context),    q(r.attention),    q(r.sum1),   q(r.norm2),
                                     q(r.hidden), q(r.activation), q(r.feed_forward), q(r.output), q(r.sum2)};
  result.activations = format;
  if (format == activation_format::int16) result.softmax = softmax_method::tflite;
  return result;
}

namespace detail {
// The points an encoder layer's quantizations read, each once, from `at` (`table_points`, or the probe of
// ctattn/quantized/model.hpp that names a point a table lacks first).
template <typename Points>
[[nodiscard]] constexpr encoder_layer_quantizations encoder_layer_quantizations_from(
    Points& at, quantization input, bool norm_first, activation_format format = activation_format::int8) noexcept {
  // Rationale: a post-norm layer's norm2 gives its output, so its quantization is the output's.
  const value_range output = at.output();
  encoder_layer_quantizations q = encoder_layer_quantizations_for({{},
                                                                   at.point(points::norm1),
                                                                   at.point(points::query),
                                                                   at.point(points::key),
                                                                   at.point(points::value),
                                                                   at.point(points::scores),
                                                                   at.point(points::context),
                                                                   at.point(points::attention),
                                                                   at.point(points::sum1),
                                                                   norm_first ? at.point(points::norm2) : output,
                                                                   at.point(points::hidden),
                                                                   at.point(points::activation),
                                                                   at.point(points::feed_forward),
                                                                   output,
                                                                   norm_first ? value_range{} : at.point(points::sum2)},
                                                                  format);
  q.input = input;
  return q;
}
}  // namespace detail

/// The quantizations of the encoder layer whose points a calibration recorded under `path`
/// (`ctattn::record_ranges`: `path.norm1` ... `path.feed_forward`, `path.sum2` for a post-norm layer, and its
/// output under `path`), its input quantized with `input` (the layer before it's output quantization).
/// `ctattn::quantize` reads every encoder layer's this way.
///
/// Example: `constexpr auto q0 = ctattn::encoder_layer_quantizations_at(toy::sorter_ranges, "layers.0", q_pos);`
template <typename Table>
[[nodiscard]] constexpr encoder_layer_quantizations encoder_layer_quantizations_at(
    const Table& table, std::string_view path, quantization input, bool norm_first = true,
    activation_format format = activation_format::int8) noexcept {
  const detail::table_points<Table> at{table, path};
  return detail::encoder_layer_quantizations_from(at, input, norm_first, format);
}

/// A transformer encoder layer in int8 (nn.TransformerEncoderLayer(batch_first=True), pre-norm by default,
/// post-norm with `NormFirst` false):
///   h = x + W_O(attention(LayerNorm1(x)));   y = h + linear2(f(linear1(LayerNorm2(h))))
/// with integer LayerNorms, per-channel int8 projections, int8 multi-head attention (`Mask`, e.g. causal), the int8
/// ADD for both residual sums and the activation f by table; each activation quantized as `Q` says.
///
/// With `Q.activations` int16 it is the layer in TFLite's 16x8 mode: every activation int16 (`q16matrix`), each
/// linear a `q16linear` (int8 weights, int64 biases), int16 LayerNorms and activation table, 16x8 attention with
/// TFLite's int16 softmax, TFLite's int16 ADD for the sums; `step` is the int8 layer's only.
///
/// | member      | type                                                                 |
/// |-------------|----------------------------------------------------------------------|
/// | `norm1`     | `qlayer_norm<Width, Q.input, Q.norm1>` (16x8: `q16layer_norm`)       |
/// | `self_attn` | `qmulti_head_attention_weights<Heads, ...>`: W_Q, W_K, W_V from Q.norm1, W_O from Q.context |
/// | `norm2`     | `qlayer_norm<Width, Q.sum1, Q.norm2>`                                |
/// | `linear1`   | `qlinear<Width, Hidden, Q.norm2, Q.hidden>` (16x8: `q16linear`)      |
/// | `activation`| `qactivation<Q.hidden, Q.activation>` (16x8: `q16activation`)        |
/// | `linear2`   | `qlinear<Hidden, Width, Q.activation, Q.feed_forward>`               |
///
/// | operand        | shape                          |
/// |----------------|--------------------------------|
/// | `forward(x)`   | `qmatrix<n, Width, Q.input>` -> `qmatrix<n, Width, Q.output>` (16x8: `q16matrix`s) |
///
/// Rules: 16x8 takes int8 weights (`int16_activations_take_int8_weights`) and TFLite's softmax
/// (`int16_softmax_is_tflites`, checked by the attention).
///
/// Example: `const auto y = ctattn::quantize_encoder_layer<q0>(float_layer).forward(x_q);`
template <auto Width, std::size_t Heads, auto Hidden, encoder_layer_quantizations Q, typename Mask = no_mask_type,
          bool NormFirst = true>
struct qtransformer_encoder_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  /// Whether the layer is 16x8 (int16 activations), and the activations' element type.
  static constexpr bool int16 = Q.activations == activation_format::int16;
  static_assert((
      shape_error::int16_activations_take_int8_weights<op::layer, shape_error::weight_format_constant<Q.weights>,
                                                       shape_error::activation_format_constant<Q.activations>>::check(),
      true));
  using value_type = detail::activation_value<Q.activations>;
  template <auto R, auto C, quantization QM>
  using matrix_type = detail::basic_quantized_matrix<value_type, R, C, QM>;
  template <auto In, auto Out, quantization QIn, quantization QOut>
  using linear_type = detail::linear_of_format<Q.activations, In, Out, QIn, QOut, Q.weights, Q.granularity>;
  static constexpr auto input_extent = Width;
  static constexpr auto output_extent = Width;
  static constexpr quantization input_quantization = Q.input;
  static constexpr quantization output_quantization = Q.output;
  static constexpr encoder_layer_quantizations quantizations = Q;
  static constexpr bool norm_first = NormFirst;
  /// What each sublayer reads: pre-norm, the attention reads norm1 and the feed-forward block norm2; post-norm, the
  /// attention reads the input, norm1 the first sum, the feed-forward block norm1 and norm2 the second sum.
  static constexpr quantization attention_input = NormFirst ? Q.norm1 : Q.input;
  static constexpr quantization norm1_input = NormFirst ? Q.input : Q.sum1;
  static constexpr quantization norm2_input = NormFirst ? Q.sum1 : Q.sum2;
  static constexpr quantization feed_forward_input = NormFirst ? Q.norm2 : Q.norm1;
  /// Post-norm, norm2 gives the layer's output.
  static constexpr quantization norm2_output = NormFirst ? Q.norm2 : Q.output;

  using attention_weights = qmulti_head_attention_weights<
      Heads, linear_type<Width, Width, attention_input, Q.query>, linear_type<Width, Width, attention_input, Q.key>,
      linear_type<Width, Width, attention_input, Q.value>, linear_type<Width, Width, Q.context, Q.attention>>;

  qlayer_norm<Width, norm1_input, Q.norm1, false, value_type> norm1{};
  attention_weights self_attn{};
  qlayer_norm<Width, norm2_input, norm2_output, false, value_type> norm2{};
  linear_type<Width, Hidden, feed_forward_input, Q.hidden> linear1{};
  qactivation<Q.hidden, Q.activation, value_type> activation{};
  linear_type<Hidden, Width, Q.activation, Q.feed_forward> linear2{};
  [[no_unique_address]] Mask mask{};

  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return detail::residual_blocks<NormFirst>(
        blocks(), x, [&](const auto& in) { return multi_head_attention<Q.scores, Q.softmax>(in, self_attn, mask); },
        [&](const auto& in) { return feed_forward(in); });
  }

  /// The quantization of block k's residual sum: `sum1`; pre-norm, the second sum is the layer's `output`.
  template <std::size_t K>
  static constexpr quantization sum_quantization = K == 1      ? Q.sum1
                                                   : NormFirst ? Q.output
                                                               : Q.sum2;

  /// The steps of the layer's two residual blocks (ctattn/layers/detail/blocks.hpp), as the float layer's: norm1 or
  /// norm2, and the int8 ADD into `sum_quantization<k>`.
  [[nodiscard]] constexpr auto blocks() const noexcept {
    return detail::int8_block_steps<qtransformer_encoder_layer>(norm1, norm2);
  }

  /// linear2(activation(linear1(h))) on the rows of h, in blocks of `Rows` rows (every row at once where that is n
  /// or more; by default `detail::kernels::int8_feed_forward_rows`): the same bits for every `Rows`, each row being
  /// computed alone.
  ///
  /// | operand | shape |
  /// |---------|-------|
  /// | `h`     | `qmatrix<n, Width, feed_forward_input>` -> `qmatrix<n, Width, Q.feed_forward>` (16x8: `q16matrix`s) |
  ///
  /// Example: `const auto ff = layer_q.feed_forward(h_q);`
  ///
  /// Rules: Rows >= 1 (`rows_per_block_must_be_positive`).
  template <std::size_t Rows = detail::kernels::int8_feed_forward_rows, detail::AnyQuantizedMatrix H>
  [[nodiscard]] constexpr auto feed_forward(const H& h) const noexcept {
    constexpr std::size_t n = H::rows;
    constexpr std::size_t rows = n < Rows ? n : Rows;
    if constexpr (!shape_error::rows_per_block_must_be_positive<op::quantized_feed_forward, count<Rows>>::check()) {
      return matrix_type<H::row_extent, Width, Q.feed_forward>{};
    } else if constexpr (rows == n) {
      return project(activate(project(h, linear1), activation), linear2);
    } else {
      matrix_type<H::row_extent, Width, Q.feed_forward> out;
      const auto run_rows = [&]<std::size_t M>(std::integral_constant<std::size_t, M>, std::size_t first) {
        // Rationale: not the short names (x, y, part, r, c) that GCC's -Wshadow reports inside a lambda against a
        // user's globals of those names (tests/static/user_names_test.cpp).
        typename detail::with_rows<H, M>::type rows_in;
        for (std::size_t row = 0; row < M; ++row) {
          for (std::size_t col = 0; col < H::cols; ++col) rows_in.elements[row][col] = h.elements[first + row][col];
        }
        const auto rows_out = project(activate(project(rows_in, linear1), activation), linear2);
        for (std::size_t row = 0; row < M; ++row) {
          for (std::size_t col = 0; col < decltype(rows_out)::cols; ++col) {
            out.elements[first + row][col] = rows_out.elements[row][col];
          }
        }
      };
      detail::kernels::for_each_row_block<n, rows>(run_rows);
      return out;
    }
  }

  /// The cache `step` keeps for up to Capacity tokens: the self-attention's int8 keys and values.
  template <std::size_t Capacity>
  using cache_type = detail::qkv_cache_for<attention_weights, Capacity>;
  /// One row of the layer's output.
  using output_row = matrix_type<std::size_t{1}, Width, Q.output>;

  /// One token of autoregressive decoding (a causal layer): `x` is the token's row; `cache` holds the keys and
  /// values of the tokens before it and receives its own. Writes the token's output row into `out`: row t of
  /// `forward` over the whole sequence, bit for bit. False, with nothing changed, when `cache` is full.
  ///
  /// | operand | shape                                  |
  /// |---------|----------------------------------------|
  /// | `x`     | `qmatrix<1, Width, Q.input>`           |
  /// | `cache` | `cache_type<Capacity>`                 |
  /// | `out`   | `output_row`                           |
  ///
  /// Example:
  /// \code
  ///   typename decltype(causal_layer_q)::template cache_type<16> cache{};
  ///   typename decltype(causal_layer_q)::output_row y{};
  ///   for (const auto& x_t : tokens_q) if (!causal_layer_q.step(x_t, cache, y)) break;
  /// \endcode
  /// Rules: a causal layer (`decoding_layer_must_be_causal`) with int8 activations
  /// (`int16_layer_has_no_decoding_step`).
  template <detail::AnyQuantizedMatrix X, typename Cache>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, output_row& out) const noexcept {
    static_assert((shape_error::decoding_layer_must_be_causal<op::decoding_step, Mask>::check(), true));
    static_assert(
        (shape_error::int16_layer_has_no_decoding_step<op::decoding_step,
                                                       shape_error::activation_format_constant<Q.activations>>::check(),
         true));
    if constexpr (int16) {
      return false;
    } else {
      if (cache.full()) return false;
      basic_qmatrix<std::size_t{1}, Width, Q.attention> attended;
      out = detail::residual_blocks<NormFirst>(
          blocks(), x, detail::int8_cached_self_attention<Q.scores, Q.softmax>(self_attn, cache, attended),
          detail::int8_feed_forward(linear1, activation, linear2));
      return true;
    }
  }

  /// The memory of `forward(x)` on an X (ctattn::footprint): the layer's object, X and the result, and on the stack
  /// the larger of its two phases, whose activations are never live together:
  ///   - the attention: two n x Width activations (pre-norm: norm1's and the attention's result; post-norm: the
  ///     result and the first sum) with the attention's own stack (its Q, K, V^T, context and scratch);
  ///   - the feed-forward block: three n x Width activations (the sum it adds to, its normalized input or the
  ///     second sum, its result) and the hidden layer's two (linear1's and the activation's), with the deepest
  ///     scratch of the LayerNorms and the two linears.
  ///
  /// Example: `static_assert(decltype(layer_q)::footprint_of<decltype(x_q)>().weight_bytes == sizeof(layer_q));`
  // Rationale: the phases, not the sum of every activation (as until KWT-Tiny: 7,200 bytes more for its 50 tokens,
  // 16 wide, which kept it off the 16 KB micro:bit): each phase's results are temporaries of its own expression, and
  // the compilers give the two phases the same bytes of the layer's frame (measured by the firmware footprint tests
  // on GCC 12 and Clang 14, against the call graph).
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t row_bytes = sizeof(value_type) * n * extent_size(Width);
    constexpr std::size_t hidden_bytes = sizeof(value_type) * n * extent_size(Hidden);
    constexpr footprint feed_forward_parts[] = {
        decltype(norm1)::template footprint_of<X>(), decltype(norm2)::template footprint_of<X>(),
        decltype(linear1)::template footprint_of<X>(), decltype(activation)::template footprint_of<X>(),
        decltype(linear2)::template footprint_of<matrix_type<X::row_extent, Hidden, Q.activation>>()};
    std::size_t deepest = 0;
    for (const footprint& part : feed_forward_parts) {
      deepest = part.stack_bytes > deepest ? part.stack_bytes : deepest;
    }
    constexpr std::size_t attention_phase = 2 * row_bytes + attention_weights::template footprint_of<X>().stack_bytes;
    const std::size_t feed_forward_phase = 3 * row_bytes + 2 * hidden_bytes + deepest;
    return {sizeof(qtransformer_encoder_layer), sizeof(X), sizeof(X), 0,
            attention_phase > feed_forward_phase ? attention_phase : feed_forward_phase};
  }

  friend constexpr bool operator==(const qtransformer_encoder_layer&, const qtransformer_encoder_layer&) = default;
};

/// A float `transformer_encoder_layer` (PyTorch's out x in weights, biases; pre- or post-norm) quantized with the
/// activations' quantizations `Q`: each linear per channel (`quantize_linear`), each LayerNorm in integers
/// (`quantize_layer_norm`), the activation as a table (`quantize_activation`); the layer's mask is kept.
///
/// | operand | what                                                                      |
/// |---------|---------------------------------------------------------------------------|
/// | `layer` | `transformer_encoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>` |
/// | result  | `qtransformer_encoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>`    |
///
/// Example: `constexpr auto layer0_q = ctattn::quantize_encoder_layer<q0>(boost::hana::at_c<0>(model.layers.layers));`
template <encoder_layer_quantizations Q, typename T, auto Width, std::size_t Heads, auto Hidden, typename Activation,
          bool NormFirst, typename Mask>
[[nodiscard]] constexpr auto quantize_encoder_layer(
    const transformer_encoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>& layer) noexcept {
  using result =
      qtransformer_encoder_layer<normalize_extent<Width>, Heads, normalize_extent<Hidden>, Q, Mask, NormFirst>;
  constexpr quantization q_attention = result::attention_input;
  result q{};
  const auto& w = layer.self_attn.weights;
  q.norm1 = quantize_layer_norm<result::norm1_input, Q.norm1, typename result::value_type>(layer.norm1);
  q.self_attn =
      detail::quantize_attention_weights<Heads, detail::attention_projection_quantizations{
                                                    q_attention, q_attention, Q.query, Q.key, Q.value, Q.context,
                                                    Q.attention, Q.weights, Q.granularity, Q.activations}>(w);
  q.norm2 = quantize_layer_norm<result::norm2_input, result::norm2_output, typename result::value_type>(layer.norm2);
  detail::quantize_feed_forward_into<result::feed_forward_input, Q, Activation>(q, layer.ff);
  return q;
}

/// The quantization of every activation of one decoder layer (nn.TransformerDecoderLayer), in the order the layer
/// computes them: the self-attention block as an encoder layer's, then the attention over the memory and the
/// feed-forward block.
///
/// | member            | pre-norm (norm_first = true)            | post-norm (the default of PyTorch)          |
/// |-------------------|-----------------------------------------|---------------------------------------------|
/// | `input`           | x, the target                           | x                                           |
/// | `memory`          | the memory (the encoder's output)       | the memory                                  |
/// | `norm1`           | LayerNorm1(x)                           | LayerNorm1(sum1)                            |
/// | `query`, `key`, `value`, `scores`, `context`, `attention` | the causal self-attention of norm1 | of x |
/// | `sum1`            | x + attention                           | x + attention                               |
/// | `norm2`           | LayerNorm2(sum1)                        | LayerNorm2(sum2)                            |
/// | `cross_query`     | norm2 projected by W_Q                  | norm1 projected by W_Q                      |
/// | `cross_key`, `cross_value` | the memory projected           | the memory projected                        |
/// | `cross_scores`, `cross_context` | as `scores`, `context`    | as `scores`, `context`                      |
/// | `cross_attention` | W_O's output                            | W_O's output                                |
/// | `sum2`            | sum1 + cross_attention                  | norm1 + cross_attention                     |
/// | `norm3`           | LayerNorm3(sum2)                        | (LayerNorm3 gives `output`)                 |
/// | `hidden`, `activation`, `feed_forward` | of norm3           | of norm2                                    |
/// | `output`          | sum2 + feed_forward                     | LayerNorm3(sum3)                            |
/// | `sum3`            | (not used)                              | norm2 + feed_forward                        |
/// | `softmax`         | not a point: both attentions' `softmax_method` |                                          |
/// | `weights`         | not a point: the ten linears' `weight_format`  |                                          |
/// | `granularity`     | not a point: their `weight_granularity`        |                                          |
///
/// A structural type: a template argument of `qtransformer_decoder_layer`.
// Rationale: the point fields shared with encoder_layer_quantizations are written here again (see there).
struct decoder_layer_quantizations {
  quantization input{1.0};
  quantization memory{1.0};
  quantization norm1{1.0};
  quantization query{1.0};
  quantization key{1.0};
  quantization value{1.0};
  quantization scores{1.0};
  quantization context{1.0};
  quantization attention{1.0};
  quantization sum1{1.0};
  quantization norm2{1.0};
  quantization cross_query{1.0};
  quantization cross_key{1.0};
  quantization cross_value{1.0};
  quantization cross_scores{1.0};
  quantization cross_context{1.0};
  quantization cross_attention{1.0};
  quantization sum2{1.0};
  quantization norm3{1.0};
  quantization hidden{1.0};
  quantization activation{1.0};
  quantization feed_forward{1.0};
  quantization output{1.0};
  quantization sum3{1.0};
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;

  friend constexpr bool operator==(const decoder_layer_quantizations&, const decoder_layer_quantizations&) = default;
};

namespace detail {
// The points a decoder layer's quantizations read, each once, from `points` (as encoder_layer_quantizations_from).
template <typename Points>
[[nodiscard]] constexpr decoder_layer_quantizations decoder_layer_quantizations_from(Points& points_at,
                                                                                     quantization input,
                                                                                     quantization memory,
                                                                                     bool norm_first) noexcept {
  const auto at = [&](std::string_view point) { return quantization_for_range(points_at.point(point)); };
  const quantization output = quantization_for_range(points_at.output());
  // Rationale: a post-norm layer's norm3 gives its output, so it has no norm3 of its own; a pre-norm one no sum3.
  return {input,
          memory,
          at(points::norm1),
          at(points::query),
          at(points::key),
          at(points::value),
          at(points::scores),
          at(points::context),
          at(points::attention),
          at(points::sum1),
          at(points::norm2),
          at(points::cross_query),
          at(points::cross_key),
          at(points::cross_value),
          at(points::cross_scores),
          at(points::cross_context),
          at(points::cross_attention),
          at(points::sum2),
          norm_first ? at(points::norm3) : output,
          at(points::hidden),
          at(points::activation),
          at(points::feed_forward),
          output,
          norm_first ? quantization{1.0} : at(points::sum3)};
}
}  // namespace detail

/// The quantizations of the decoder layer whose points a calibration recorded under `path` (`ctattn::record_ranges`
/// with `ctattn::with_memory`: `path.norm1` ... `path.feed_forward`, `path.sum3` for a post-norm layer, its output
/// under `path`), its input quantized with `input` (the layer before it's output quantization) and the memory with
/// `memory` (the range named `memory`). `ctattn::quantize` reads every decoder layer's this way.
///
/// Example: `constexpr auto q0 = ctattn::decoder_layer_quantizations_at(ranges, "layers.0", q_in, q_memory, false);`
template <typename Table>
[[nodiscard]] constexpr decoder_layer_quantizations decoder_layer_quantizations_at(
    const Table& table, std::string_view path, quantization input, quantization memory, bool norm_first) noexcept {
  const detail::table_points<Table> at{table, path};
  return detail::decoder_layer_quantizations_from(at, input, memory, norm_first);
}

/// A transformer decoder layer in int8 (nn.TransformerDecoderLayer(batch_first=True), post-norm as PyTorch's
/// default, pre-norm with `NormFirst`): causal self-attention, attention over the memory (the encoder's output, in
/// its own quantization), the feed-forward block, each with its residual sum and LayerNorm, every activation
/// quantized as `Q` says (`decoder_layer_quantizations`):
///   pre-norm:  a = x + SA(LN1(x));   b = a + CA(LN2(a), memory);   y = b + FF(LN3(b))
///   post-norm: a = LN1(x + SA(x));   b = LN2(a + CA(a, memory));   y = LN3(b + FF(b))
///
/// | member           | type                                                              |
/// |------------------|-------------------------------------------------------------------|
/// | `self_attn`      | `qmulti_head_attention_weights<Heads, ...>`, causal               |
/// | `multihead_attn` | `qmulti_head_attention_weights<Heads, ...>`: W_Q from the target, W_K and W_V from Q.memory |
/// | `norm1`, `norm2`, `norm3` | `qlayer_norm<Width, ...>`                                |
/// | `linear1`, `activation`, `linear2` | the feed-forward block                          |
///
/// | operand                        | shape                                                    |
/// |--------------------------------|----------------------------------------------------------|
/// | `x`                            | `qmatrix<n, Width, Q.input>` (the target)                |
/// | `memory`                       | `qmatrix<m, Width, Q.memory>`                            |
/// | `forward(x, memory, masks...)` | `qmatrix<n, Width, Q.output>`                            |
/// | `forward(x, with_memory(memory), masks...)` | the same, the form a `qchain` calls         |
///
/// Masks, as the float layer takes them: the self-attention's `Mask` (causal by default, `ctattn::no_mask_type`
/// for PyTorch's default of no tgt_mask), `ctattn::tgt_mask(m)` combined with it, `ctattn::memory_mask(m)` for the
/// attention over the memory; in int8, masks that hide keys. `step` needs the causal mask.
///
/// Example: `const auto y = ctattn::quantize_decoder_layer<q0>(float_layer).forward(tgt_q, memory_q);`
template <auto Width, std::size_t Heads, auto Hidden, decoder_layer_quantizations Q, typename Mask = causal_mask,
          bool NormFirst = false>
struct qtransformer_decoder_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  /// Its activations are int8: the decoder layer has no 16x8 form.
  static constexpr bool int16 = false;
  /// The mask of the self-attention.
  using mask_type = Mask;
  static constexpr auto input_extent = Width;
  /// It attends to a memory given with the call (`ctattn::with_memory`).
  static constexpr bool takes_memory = true;
  static constexpr auto output_extent = Width;
  static constexpr quantization input_quantization = Q.input;
  static constexpr quantization memory_quantization = Q.memory;
  static constexpr bool needs_memory = true;
  static constexpr quantization output_quantization = Q.output;
  static constexpr decoder_layer_quantizations quantizations = Q;
  static constexpr bool norm_first = NormFirst;
  /// What each sublayer reads (see `decoder_layer_quantizations`).
  static constexpr quantization self_attention_input = NormFirst ? Q.norm1 : Q.input;
  static constexpr quantization cross_attention_input = NormFirst ? Q.norm2 : Q.norm1;
  static constexpr quantization feed_forward_input = NormFirst ? Q.norm3 : Q.norm2;
  static constexpr quantization norm1_input = NormFirst ? Q.input : Q.sum1;
  static constexpr quantization norm2_input = NormFirst ? Q.sum1 : Q.sum2;
  static constexpr quantization norm3_input = NormFirst ? Q.sum2 : Q.sum3;
  /// Post-norm, norm3 gives the layer's output.
  static constexpr quantization norm3_output = NormFirst ? Q.norm3 : Q.output;

  using self_attention_weights =
      qmulti_head_attention_weights<Heads,
                                    qlinear<Width, Width, self_attention_input, Q.query, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, self_attention_input, Q.key, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, self_attention_input, Q.value, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, Q.context, Q.attention, Q.weights, Q.granularity>>;
  using cross_attention_weights = qmulti_head_attention_weights<
      Heads, qlinear<Width, Width, cross_attention_input, Q.cross_query, Q.weights, Q.granularity>,
      qlinear<Width, Width, Q.memory, Q.cross_key, Q.weights, Q.granularity>,
      qlinear<Width, Width, Q.memory, Q.cross_value, Q.weights, Q.granularity>,
      qlinear<Width, Width, Q.cross_context, Q.cross_attention, Q.weights, Q.granularity>>;

  qlayer_norm<Width, norm1_input, Q.norm1> norm1{};
  self_attention_weights self_attn{};
  qlayer_norm<Width, norm2_input, Q.norm2> norm2{};
  cross_attention_weights multihead_attn{};
  qlayer_norm<Width, norm3_input, norm3_output> norm3{};
  qlinear<Width, Hidden, feed_forward_input, Q.hidden, Q.weights, Q.granularity> linear1{};
  qactivation<Q.hidden, Q.activation> activation{};
  qlinear<Hidden, Width, Q.activation, Q.feed_forward, Q.weights, Q.granularity> linear2{};

  template <QuantizedMatrix X, QuantizedMatrix Memory, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Memory& memory, const Options&... options) const noexcept
      -> basic_qmatrix<X::row_extent, Width, Q.output> {
    if constexpr (!shape_error::decoder_masks_must_name_their_attention<op::quantized_decoder_layer,
                                                                        Options...>::check()) {
      return {};
    } else {
      const auto self = [&](const auto& in) {
        if constexpr ((detail::is_tgt_mask_option<Options>::value || ...)) {
          return multi_head_attention<Q.scores, Q.softmax>(
              in, self_attn, combine_masks(Mask{}, detail::find_first<detail::is_tgt_mask_option>(options...).mask));
        } else {
          return multi_head_attention<Q.scores, Q.softmax>(in, self_attn, Mask{});
        }
      };
      const auto cross = [&](const auto& in) {
        if constexpr ((detail::is_memory_mask_option<Options>::value || ...)) {
          return multi_head_attention<Q.cross_scores, Q.softmax>(
              in, memory, multihead_attn, detail::find_first<detail::is_memory_mask_option>(options...).mask);
        } else {
          return multi_head_attention<Q.cross_scores, Q.softmax>(in, memory, multihead_attn);
        }
      };
      return detail::residual_blocks<NormFirst>(blocks(), x, self, cross,
                                                detail::int8_feed_forward(linear1, activation, linear2));
    }
  }

  /// The quantization of block k's residual sum: `sum1`, `sum2`, `sum3`; pre-norm, the third sum is the layer's
  /// `output`.
  template <std::size_t K>
  static constexpr quantization sum_quantization = K == 1      ? Q.sum1
                                                   : K == 2    ? Q.sum2
                                                   : NormFirst ? Q.output
                                                               : Q.sum3;

  /// The steps of the layer's three residual blocks (ctattn/layers/detail/blocks.hpp), as the float layer's: norm1,
  /// norm2 or norm3, and the int8 ADD into `sum_quantization<k>`.
  [[nodiscard]] constexpr auto blocks() const noexcept {
    return detail::int8_block_steps<qtransformer_decoder_layer>(norm1, norm2, norm3);
  }

  /// The cache of the self-attention's int8 keys and values `step` keeps, for up to Capacity tokens.
  template <std::size_t Capacity>
  using cache_type = detail::qkv_cache_for<self_attention_weights, Capacity>;
  /// The cache of the memory's keys and values `prepare` projects, for a memory of up to Capacity rows.
  template <std::size_t Capacity>
  using source_type = detail::qkv_cache_for<cross_attention_weights, Capacity>;
  /// One row of the layer's output.
  using output_row = basic_qmatrix<std::size_t{1}, Width, Q.output>;

  /// Projects the memory (in Q.memory) once into `source`, the cache `step`'s attention over the memory reads.
  /// Call once per source sequence.
  ///
  /// | operand  | shape                                              |
  /// |----------|----------------------------------------------------|
  /// | `memory` | `qmatrix<m, Width, Q.memory>`, m <= Capacity        |
  /// | `source` | `source_type<Capacity>`                            |
  template <QuantizedMatrix Memory, typename Source>
  constexpr void prepare(const Memory& memory, Source& source) const noexcept {
    cache_memory(memory, multihead_attn, source);
  }

  /// One token of autoregressive decoding: `x` is the token's row; `cache` holds the keys and values of the tokens
  /// before it (and receives its own), `source` the memory as `prepare` projected it. Writes the token's output row
  /// into `out`: row t of `forward(tgt, memory)` over the whole target, bit for bit. False, with nothing changed,
  /// when `cache` is full.
  ///
  /// | operand  | shape                                 |
  /// |----------|---------------------------------------|
  /// | `x`      | `qmatrix<1, Width, Q.input>`          |
  /// | `cache`  | `cache_type<Capacity>`                |
  /// | `source` | `source_type<M>` from `prepare`       |
  /// | `out`    | `output_row`                          |
  ///
  /// Example:
  /// \code
  ///   typename decltype(decoder_q)::template cache_type<16> cache{};
  ///   typename decltype(decoder_q)::template source_type<8> source{};
  ///   typename decltype(decoder_q)::output_row y{};
  ///   decoder_q.prepare(memory_q, source);
  ///   for (const auto& x_t : target_q) if (!decoder_q.step(x_t, cache, source, y)) break;
  /// \endcode
  template <QuantizedMatrix X, typename Cache, typename Source>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, const Source& source, output_row& out) const noexcept {
    static_assert((shape_error::decoding_layer_must_be_causal<op::decoding_step, Mask>::check(), true));
    if (cache.full()) return false;
    basic_qmatrix<std::size_t{1}, Width, Q.attention> attended;
    basic_qmatrix<std::size_t{1}, Width, Q.cross_attention> crossed;
    out = detail::residual_blocks<NormFirst>(
        blocks(), x, detail::int8_cached_self_attention<Q.scores, Q.softmax>(self_attn, cache, attended),
        [&](const auto& in) {
          multi_head_attention_cached<Q.cross_scores, Q.softmax>(in, multihead_attn, source, crossed);
          return crossed;
        },
        detail::int8_feed_forward(linear1, activation, linear2));
    return true;
  }

  /// `forward(x, memory, masks...)` with the memory among the options (`ctattn::with_memory(memory)`): the form
  /// a `qchain` calls, every decoder layer of a stack attending to the same memory.
  template <QuantizedMatrix X, typename... Options>
    requires(detail::is_memory_option<Options>::value || ...)
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    return forward(x, *detail::find_first<detail::is_memory_option>(options...).memory, options...);
  }

  /// A forward without a memory: the rule `decoder_needs_its_memory` says to give it.
  template <QuantizedMatrix X, typename... Options>
    requires(!(detail::is_memory_option<Options>::value || ...) && !(QuantizedMatrix<Options> || ...))
  [[nodiscard]] constexpr auto forward(const X&, const Options&...) const noexcept
      -> basic_qmatrix<X::row_extent, Width, Q.output> {
    (void)shape_error::decoder_needs_its_memory<op::quantized_decoder_layer,
                                                (detail::is_memory_option<Options>::value || ...)>::check();
    return {};
  }

  /// The result of a forward on an X (for `qchain`, which asks it without a memory at hand).
  template <typename X>
  using result_of = basic_qmatrix<X::row_extent, Width, Q.output>;

  /// The memory of `forward(x, memory)` on an X and a Memory (ctattn::footprint; in a `qchain`, Memory is taken to
  /// be as long as X): the layer's object, X and Memory in, the result, and on the stack the intermediate
  /// activations of `forward` (a, b, and per block its normalized input, its sublayer's result and the feed-forward
  /// block's hidden and activated rows) with the deepest call's scratch.
  ///
  /// Example: `static_assert(decltype(layer_q)::footprint_of<decltype(x_q), decltype(memory_q)>().weight_bytes == sizeof(layer_q));`
  template <QuantizedMatrix X, QuantizedMatrix Memory = X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t width = extent_size(Width);
    constexpr std::size_t hidden = extent_size(Hidden);
    // The cross-attention's stack: its Q (n rows), K and V (m rows each), the context (n rows), and a head's scratch
    // over n x m pairs, as `qmulti_head_attention_weights::footprint_of` counts it for self-attention.
    constexpr std::size_t m = Memory::rows;
    constexpr std::size_t key_width = width / Heads;
    constexpr std::size_t scores_product = detail::kernels::int8_product_stack_bytes<n, key_width, m>;
    constexpr std::size_t context_product = detail::kernels::int8_product_stack_bytes<n, m, key_width>;
    constexpr std::size_t head = key_width * m + 2 * n * m + m + sizeof(std::int32_t) * (2 * m + n + 2 * key_width) +
                                 (scores_product > context_product ? scores_product : context_product);
    constexpr std::size_t projection = detail::kernels::int8_product_stack_bytes<(n > m ? n : m), Width, Width>;
    constexpr std::size_t cross = width * (2 * n + 2 * m) + (head > projection ? head : projection);
    constexpr footprint parts[] = {
        decltype(norm1)::template footprint_of<X>(), self_attention_weights::template footprint_of<X>(),
        decltype(linear1)::template footprint_of<X>(), decltype(activation)::template footprint_of<X>(),
        decltype(linear2)::template footprint_of<basic_qmatrix<X::row_extent, Hidden, Q.activation>>()};
    std::size_t deepest = cross;
    for (const footprint& part : parts) deepest = part.stack_bytes > deepest ? part.stack_bytes : deepest;
    return {sizeof(qtransformer_decoder_layer), sizeof(X) + sizeof(Memory), sizeof(X), 0,
            n * (7 * width + 2 * hidden) + deepest};
  }

  friend constexpr bool operator==(const qtransformer_decoder_layer&, const qtransformer_decoder_layer&) = default;
};

/// A float `transformer_decoder_layer` (PyTorch's out x in weights; pre- or post-norm) quantized with the
/// activations' quantizations `Q`, each sublayer as in `quantize_encoder_layer`; the attention over the memory
/// reads the memory in `Q.memory`.
///
/// | operand | what                                                                      |
/// |---------|---------------------------------------------------------------------------|
/// | `layer` | `transformer_decoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>` |
/// | result  | `qtransformer_decoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>`    |
///
/// Example: `constexpr auto layer0_q = ctattn::quantize_decoder_layer<q0>(model.layers.layer0);`
template <decoder_layer_quantizations Q, typename T, auto Width, std::size_t Heads, auto Hidden, typename Activation,
          bool NormFirst, typename Mask>
[[nodiscard]] constexpr auto quantize_decoder_layer(
    const transformer_decoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>& layer) noexcept {
  using result =
      qtransformer_decoder_layer<normalize_extent<Width>, Heads, normalize_extent<Hidden>, Q, Mask, NormFirst>;
  constexpr quantization q_self = result::self_attention_input;
  constexpr quantization q_cross = result::cross_attention_input;
  result q{};
  const auto& s = layer.self_attn.weights;
  const auto& c = layer.multihead_attn;
  q.norm1 = quantize_layer_norm<result::norm1_input, Q.norm1>(layer.norm1);
  q.self_attn = detail::quantize_attention_weights<Heads, detail::attention_projection_quantizations{
                                                              q_self, q_self, Q.query, Q.key, Q.value, Q.context,
                                                              Q.attention, Q.weights, Q.granularity}>(s);
  q.norm2 = quantize_layer_norm<result::norm2_input, Q.norm2>(layer.norm2);
  q.multihead_attn =
      detail::quantize_attention_weights<Heads, detail::attention_projection_quantizations{
                                                    q_cross, Q.memory, Q.cross_query, Q.cross_key, Q.cross_value,
                                                    Q.cross_context, Q.cross_attention, Q.weights, Q.granularity}>(c);
  q.norm3 = quantize_layer_norm<result::norm3_input, result::norm3_output>(layer.norm3);
  detail::quantize_feed_forward_into<result::feed_forward_input, Q, Activation>(q, layer.ff);
  return q;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_TRANSFORMER_HPP
