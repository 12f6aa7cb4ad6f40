// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_LLAMA_HPP
#define CTATTN_QUANTIZED_LLAMA_HPP

/// \file
/// The llama-style layers in int8 (ctattn/layers/llama.hpp's, as `ctattn::quantize` maps them): integers only at
/// run time, the same bits in constant evaluation and on every target, and a decoding step over an int8 key/value
/// cache that gives row t of the int8 forward over the whole sequence, bit for bit.
///
/// | entity                                                    | what                                                  |
/// |-----------------------------------------------------------|-------------------------------------------------------|
/// | `llama_attention_shape`                                   | heads, key/value heads, positions, rotary pairing and base of one attention |
/// | `llama_attention_quantizations`                           | the quantization of each activation of one attention  |
/// | `qllama_attention<Shape, Scores, Softmax, WQ, WK, WV, WO>`, `quantize_llama_attention<QIn, Q>(attention)` | grouped-query attention with rotary positions in int8 |
/// | `qllama_block<Attention, FeedForward, Norm1, Norm2, QSum1, QOut>` | `llama_block` in int8: qrms_norm, attention, ADD, qrms_norm, `qgated_feed_forward`, ADD |
/// | `qllama_transformer<Layers, Embedding, Blocks, Norm, Head, QLogits>` | `llama_transformer` in int8: int8 logits, `step`, `decode_footprint` |
/// | `greedy_token(logits_q)`                                  | the id of the largest int8 logit (the first of equal ones) |
///
/// The rotary rotation is done on the int8 query and key rows: with c and s the cosine and sine of the pair's angle
/// as Q15 constants the compiler computes (`detail::q15_rotary`), and z the row's zero point,
///
///     a' = round(((a - z) c - (b - z) s) / 2^15) + z,   b' = round(((a - z) s + (b - z) c) / 2^15) + z
///
/// saturated to int8, in the projection's own quantization: the range `ctattn::record_ranges` records for the
/// query (and the key) holds the projected rows and the rotated ones, so that one quantization holds both.
///
/// The names `ctattn::record_ranges` records and `ctattn::quantize` reads, under the layer's path P (the float
/// layers' parameter names; P empty for a single layer, whose output is then `output`):
///
/// | float layer         | points                                                                            |
/// |---------------------|-----------------------------------------------------------------------------------|
/// | `llama_attention`   | `P.query`, `P.key` (each projected and rotated), `P.value`, `P.scores` (q k^T / sqrt(head_dim) over the keys each query sees, query head h against key/value head h / (Heads / KeyValueHeads)), `P.context` (the heads side by side, wo's input); wo's output under `P` |
/// | `llama_block`       | `P.attention_norm`, the attention's under `P.attention` (`P.attention.query` ... `P.attention.context`, wo's output `P.attention`), `P.sum1` (x + attention), `P.ffn_norm`, the feed-forward block's under `P.feed_forward` (`P.feed_forward.w1`, `.activation`, `.w3`, `.product`, w2's output `P.feed_forward`); the block's output (sum1 + feed_forward) under `P` |
/// | `llama_transformer` | `P.tok_embeddings.weight` (the table, per tensor), `P.tok_embeddings`, each block's under `P.layers.<i>`, `P.layers`, `P.norm`, the logits under `P` (`output` at the top; untied, also the head's under `P.output`) |
///
/// `ctattn::quantize` makes these from a float model and its recorded ranges (ctattn/quantized/model.hpp has the
/// whole-model example); by hand, an attention from its quantizations:
/// \code
///   constexpr ctattn::quantization q_x{1.0 / 64};
///   constexpr ctattn::llama_attention_quantizations q{.query = {1.0 / 64}, .key = {1.0 / 64},
///                                                     .value = {1.0 / 64}, .scores = {1.0 / 16},
///                                                     .context = {1.0 / 64}, .output = {1.0 / 64}};
///   constexpr ctattn::llama_attention<float, 8, 2, 1, 4> attention{};   // width 8, 2 heads over 1, 4 positions
///   constexpr auto attention_q = ctattn::quantize_llama_attention<q_x, q>(attention);
///   constexpr auto y = attention_q.forward(ctattn::qmatrix<3, 8, q_x>{});   // 3 x 8 in q.output: zeros, as x is
///   static_assert(y(2, 0) == 0);
/// \endcode

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ctattn/attention/mask.hpp"
#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/layers/detail/blocks.hpp"
#include "ctattn/layers/llama.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/position/rotary.hpp"
#include "ctattn/quantized/add.hpp"
#include "ctattn/quantized/attention.hpp"
#include "ctattn/quantized/feed_forward.hpp"
#include "ctattn/quantized/kv_cache.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/norm.hpp"
#include "ctattn/quantized/points.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/softmax.hpp"
#include "ctattn/quantized/transformer.hpp"

namespace ctattn {

namespace points {
/// The points of the llama layers that are not a transformer layer's (the float layers' member names): a block's
/// two RMSNorms, and a model's token embedding, blocks and final norm. A block's attention and feed-forward block
/// are under `attention` and `feed_forward` (`points::attention`, `points::feed_forward`), their outputs' names.
inline constexpr std::string_view attention_norm = "attention_norm";
inline constexpr std::string_view ffn_norm = "ffn_norm";
inline constexpr std::string_view tok_embeddings = "tok_embeddings";
inline constexpr std::string_view layers = "layers";
inline constexpr std::string_view norm = "norm";
}  // namespace points

/// The configuration of one llama attention that its int8 form keeps (a structural type, a template argument of
/// `qllama_attention`): the float layer's `Heads`, `KeyValueHeads`, `Positions`, `Rotary` and `Base`.
///
/// | member            | meaning                                             |
/// |-------------------|-----------------------------------------------------|
/// | `heads`           | query heads (llama2.c's `n_heads`)                  |
/// | `key_value_heads` | key/value heads (`n_kv_heads`), dividing `heads`    |
/// | `positions`       | the rotary table's positions                        |
/// | `rotary`          | the pairing (`rotary_layout`)                       |
/// | `base`            | the rotary base (10000)                             |
///
/// Example: `constexpr ctattn::llama_attention_shape stories260k{8, 4, 512};`
struct llama_attention_shape {
  std::size_t heads = 1;
  std::size_t key_value_heads = 1;
  std::size_t positions = 1;
  rotary_layout rotary = rotary_layout::interleaved;
  std::size_t base = 10000;
  friend constexpr bool operator==(const llama_attention_shape&, const llama_attention_shape&) = default;
};

/// The quantization of each activation of one llama attention (its points, this header's table), and how its
/// projections and softmax are formed.
///
/// | member        | the activation                                                  |
/// |---------------|-----------------------------------------------------------------|
/// | `query`       | wq x, and its rotation (one quantization holds both)            |
/// | `key`         | wk x, and its rotation                                          |
/// | `value`       | wv x                                                            |
/// | `scores`      | q k^T / sqrt(head_dim), every head's                            |
/// | `context`     | the heads side by side (wo's input)                             |
/// | `output`      | wo's output, the layer's                                        |
/// | `softmax`, `weights`, `granularity` | not points: the softmax and the projections' weights |
///
/// Example: `constexpr auto a = ctattn::quantize_llama_attention<q_x, q>(attention);   // q: these quantizations`
struct llama_attention_quantizations {
  quantization query{1.0};
  quantization key{1.0};
  quantization value{1.0};
  quantization scores{1.0};
  quantization context{1.0};
  quantization output{1.0};
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
  friend constexpr bool operator==(const llama_attention_quantizations&,
                                   const llama_attention_quantizations&) = default;
};

namespace detail {
// The cosines and sines of RoPE as Q15 integers: Positions rows of HeadDim / 2 pairs.
template <std::size_t Positions, std::size_t HeadDim>
struct q15_rotary_table {
  static constexpr std::size_t positions = Positions;
  static constexpr std::size_t pairs = HeadDim / 2 > 0 ? HeadDim / 2 : 1;
  std::int16_t cos_table[Positions][pairs];
  std::int16_t sin_table[Positions][pairs];
};

// v times 2^15, rounded half away from zero, within [-32767, 32767].
// Rationale: 1.0 is kept as 32767 (int16, half the flash of int32 constants): (a - z) 32767 / 2^15 differs from
// a - z by at most 255 / 32768, which the rounding takes away, so position 0 leaves a row as it is.
[[nodiscard]] constexpr std::int16_t q15_of(double v) noexcept {
  const double scaled = v * 32768.0;
  const double rounded = scaled < 0 ? scaled - 0.5 : scaled + 0.5;
  const double held = rounded > 32767.0 ? 32767.0 : (rounded < -32767.0 ? -32767.0 : rounded);
  return static_cast<std::int16_t>(held);
}

template <std::size_t Positions, std::size_t HeadDim, std::size_t Base>
[[nodiscard]] constexpr q15_rotary_table<Positions, HeadDim> make_q15_rotary_table() noexcept {
  q15_rotary_table<Positions, HeadDim> table{};
  const auto angles = make_rotary_table<double, Positions, HeadDim, Base>();
  for (std::size_t t = 0; t < Positions; ++t) {
    for (std::size_t p = 0; p < HeadDim / 2; ++p) {
      table.cos_table[t][p] = q15_of(angles.cos_table.elements[t][p]);
      table.sin_table[t][p] = q15_of(angles.sin_table.elements[t][p]);
    }
  }
  return table;
}

// The Q15 table of every int8 llama attention of one shape, computed once by the compiler.
// Rationale: a variable template, not a static member of each attention type, so that a model's blocks (each a type
// of its own, their quantizations differing) share one table in flash.
template <std::size_t Positions, std::size_t HeadDim, std::size_t Base>
inline constexpr q15_rotary_table<Positions, HeadDim> q15_rotary = make_q15_rotary_table<Positions, HeadDim, Base>();

// Rotates every head of the int8 rows of `x` in place (each HeadDim columns), row r at position first_position + r,
// pair p as the layout pairs it, in x's quantization (this header's formula; kernels::int8_rotate_heads). The rules
// and first_position + rows <= the table's positions are the caller's.
template <rotary_layout Layout, std::size_t HeadDim, typename M, typename Table>
constexpr void rotate_int8_heads(M& x, const Table& table, std::size_t first_position) noexcept {
  static_assert(rotary_pair<Layout, HeadDim>(1).a == (Layout == rotary_layout::interleaved ? 2 : 1) &&
                    rotary_pair<Layout, HeadDim>(0).b == (Layout == rotary_layout::interleaved ? 1 : HeadDim / 2),
                "kernels::int8_rotate_heads pairs columns as rotary_pair does");
  for (std::size_t r = 0; r < M::rows; ++r) {
    const std::size_t t = first_position + r;
    kernels::int8_rotate_heads<HeadDim, Layout == rotary_layout::interleaved>(
        x.elements[r], M::cols / HeadDim, table.cos_table[t], table.sin_table[t], M::quant.zero_point);
  }
}
}  // namespace detail

/// Grouped-query self-attention with rotary positions in int8, causal: `llama_attention`'s int8 form.
///
///     Q = rot(wq x), K = rot(wk x), V = wv x  (int8, per-channel projections; rot: this header's rotation)
///     head h: int8 softmax(Q_h K_g^T / sqrt(head_dim) + causal) V_g, g = h / (Heads / KeyValueHeads)
///     y = wo concat(heads)
///
/// | operand / member | shape / meaning                                                       |
/// |------------------|-----------------------------------------------------------------------|
/// | `forward(x)`     | `qmatrix<n, DModel, Q(x)>` -> `qmatrix<n, DModel, wo's output>`, n <= Positions |
/// | `wq`, `wo`       | `qlinear` DModel -> DModel (Q(x) -> `query`), DModel -> DModel (`context` -> `output`) |
/// | `wk`, `wv`       | `qlinear` DModel -> KeyValueHeads x head_dim (Q(x) -> `key`, `value`) |
/// | `rotary`         | the Q15 cosines and sines, Positions x head_dim / 2 each (`detail::q15_rotary`) |
/// | `cache_type<C>`  | `qkv_cache<C, KeyValueHeads x head_dim, ..., key, value>`: C tokens' rotated keys and values |
///
/// Rules: the float layer's (`detail::llama_attention_rules`: heads divide DModel, key/value heads divide heads, an
/// even head width, Positions > 0, Base > 1); x's width and quantization (`input_quantization_must_match_layer`);
/// n and a cache's capacity at most Positions (`sequence_must_fit_position_table`).
///
/// Example: `const auto y = ctattn::quantize_llama_attention<q_x, q>(attention).forward(x_q);`
template <llama_attention_shape Shape, quantization Scores, softmax_method Softmax, typename Query, typename Key,
          typename Value, typename Output>
struct qllama_attention {
  static constexpr std::size_t width = Query::inputs;
  using rules = detail::llama_attention_rules<width, Shape.heads, Shape.key_value_heads, Shape.positions, Shape.base>;
  static_assert((detail::first_broken<rules>::check(), true));
  static constexpr auto input_extent = Query::input_extent;
  static constexpr auto output_extent = Output::output_extent;
  static constexpr quantization input_quantization = Query::input_quantization;
  static constexpr quantization output_quantization = Output::output_quantization;
  static constexpr quantization scores_quantization = Scores;
  static constexpr softmax_method softmax = Softmax;
  static constexpr llama_attention_shape shape = Shape;
  static constexpr std::size_t heads = rules_hold<rules> ? Shape.heads : 1;
  static constexpr std::size_t key_value_heads = rules_hold<rules> ? Shape.key_value_heads : 1;
  static constexpr std::size_t positions = Shape.positions > 0 ? Shape.positions : 1;
  // Rationale: with a broken rule a head of 2 columns stands in, so that the rule's sentence is the only error.
  static constexpr std::size_t head_dim = rules_hold<rules> ? width / Shape.heads : 2;
  using table_type = detail::q15_rotary_table<positions, head_dim>;
  /// The rotations by position, in Q15, computed once by the compiler (shared by every layer of this shape).
  static constexpr const table_type& rotary =
      detail::q15_rotary<positions, head_dim, (Shape.base > 1 ? Shape.base : 2)>;

  /// The key/value cache of `step` for `Capacity` tokens: their rotated int8 keys and their int8 values.
  template <std::size_t Capacity>
  using cache_type = qkv_cache<Capacity, Key::output_extent, Value::output_extent, Key::output_quantization,
                               Value::output_quantization>;
  /// One row of the layer's output.
  using output_row = basic_qmatrix<std::size_t{1}, output_extent, output_quantization>;

  Query wq{};
  Key wk{};
  Value wv{};
  Output wo{};

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept
      -> basic_qmatrix<X::row_extent, output_extent, output_quantization> {
    using input_rules =
        rule_list<detail::quantized_projection_rules<X, Query>,
                  shape_error::sequence_must_fit_position_table<op::llama_attention, dim_of<X::row_extent>,
                                                                dim<unnamed, positions>>>;
    if constexpr (!rules_hold<rules> || !detail::first_broken<input_rules>::check()) {
      return {};
    } else {
      auto q = project(x, wq);
      auto k = project(x, wk);
      rotate(q, 0);
      rotate(k, 0);
      const auto v_t = detail::transposed_values(project(x, wv));
      basic_qmatrix<X::row_extent, Output::input_extent, Output::input_quantization> context;
      for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t g = h / (heads / key_value_heads);
        detail::int8_attend<Scores, Softmax, head_dim, head_dim, true>(
            q, k, v_t, causal, context, {h * head_dim, g * head_dim, g * head_dim, h * head_dim});
      }
      return project(context, wo);
    }
  }

  /// One token of decoding: `x` is the token's row at position `cache.length`; its query and key are rotated
  /// there, its key and value appended to `cache` (`detail::cached_attention_step`, multi-head attention's step
  /// with the rotation between projecting and appending), and its output row written into `out`: row
  /// `cache.length` of `forward` over the whole sequence, bit for bit. False, with nothing changed, when the cache
  /// is full.
  ///
  /// | operand | shape                                          |
  /// |---------|------------------------------------------------|
  /// | `x`     | `qmatrix<1, DModel, Q(x)>`                     |
  /// | `cache` | `cache_type<Capacity>`, Capacity <= Positions  |
  /// | `out`   | `output_row`                                   |
  ///
  /// Example: `if (!attention_q.step(x_t, cache, y_t)) { /* the cache is full */ }`
  template <QuantizedMatrix X, typename Cache>
    requires detail::is_qkv_cache<Cache>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, output_row& out) const noexcept {
    using step_rules = rule_list<
        shape_error::must_be_a_single_row<op::llama_attention, dim_of<X::row_extent>>,
        detail::quantized_projection_rules<X, Query>,
        shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>, dim_of<Key::output_extent>>,
        shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>, dim_of<Value::output_extent>>,
        shape_error::int8_cache_must_hold_the_projections_quantization<op::kv_cache,
                                                                       quantization_constant<Cache::key_quantization>,
                                                                       quantization_constant<Key::output_quantization>>,
        shape_error::int8_cache_must_hold_the_projections_quantization<
            op::kv_cache, quantization_constant<Cache::value_quantization>,
            quantization_constant<Value::output_quantization>>,
        shape_error::sequence_must_fit_position_table<op::llama_attention, dim<unnamed, Cache::capacity>,
                                                      dim<unnamed, positions>>>;
    if constexpr (!rules_hold<rules> || !detail::first_broken<step_rules>::check()) {
      return false;
    } else {
      return detail::cached_attention_step<Scores, Softmax, heads, key_value_heads>(
          x, wq, wk, wv, wo, cache, out, no_mask, [](auto& q, auto& k, std::size_t position) {
            rotate(q, position);
            rotate(k, position);
          });
    }
  }

  /// Rotates the heads of int8 query or key rows `m` in place, row r at position first_position + r (this
  /// header's formula; the rows in their projection's quantization).
  ///
  /// | operand | shape                                          |
  /// |---------|------------------------------------------------|
  /// | `m`     | `qmatrix<n, Heads x head_dim or KeyValueHeads x head_dim, Q>`, first_position + n <= Positions |
  ///
  /// Example: `attention_q.rotate(k_q, 3);   // row 0 at position 3`
  template <QuantizedMatrix M>
  static constexpr void rotate(M& m, std::size_t first_position) noexcept {
    detail::rotate_int8_heads<Shape.rotary, head_dim>(m, rotary, first_position);
  }

  /// The memory of `forward(x)` on an X (ctattn::footprint): the layer's projections and the rotary table
  /// (weights), X and the result, and on the stack Q, K, V and V^T, the context, and the larger of a head's
  /// scratch (as `qmulti_head_attention_weights::footprint_of` counts it) and a projection's kernel scratch.
  ///
  /// Example: `static_assert(decltype(attention_q)::footprint_of<decltype(x_q)>().weight_bytes > 0);`
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t kv_width = Key::outputs;
    constexpr std::size_t rows =
        n < detail::kernels::int8_attention_query_rows ? n : detail::kernels::int8_attention_query_rows;
    constexpr std::size_t scores_product = detail::kernels::int8_product_stack_bytes<rows, head_dim, n>;
    constexpr std::size_t context_product = detail::kernels::int8_product_stack_bytes<rows, n, head_dim>;
    constexpr std::size_t head = 2 * rows * n + n + sizeof(std::int32_t) * (n + head_dim) +
                                 (scores_product > context_product ? scores_product : context_product);
    constexpr std::size_t projection = detail::kernels::int8_product_stack_bytes<n, width, width>;
    return {sizeof(qllama_attention) + sizeof(table_type), sizeof(X),
            sizeof(basic_qmatrix<X::row_extent, output_extent, output_quantization>), 0,
            n * (2 * width + 3 * kv_width) + (head > projection ? head : projection)};
  }

  /// The memory of one `step` over a cache of `Capacity` tokens: the token's query, key, value and context rows
  /// and the scratch of a key/value head's group of query heads over Capacity keys (each head's sums, scores and
  /// weights, the group's visible flags: `detail::int8_attend_group`; counted for the whole group on every target,
  /// though only Helium attends to the group at once) beside a projection's kernel scratch, on the stack; the cache
  /// is the caller's (`sizeof(cache_type<Capacity>)`).
  ///
  /// Example: `static_assert(decltype(attention_q)::step_footprint<64>().stack_bytes > 0);`
  template <std::size_t Capacity>
  [[nodiscard]] static constexpr footprint step_footprint() noexcept {
    constexpr std::size_t kv_width = Key::outputs;
    constexpr std::size_t group = heads / key_value_heads;
    constexpr std::size_t head =
        group * (sizeof(std::int32_t) * (Capacity > head_dim ? Capacity : head_dim) + 2 * Capacity) + Capacity;
    constexpr std::size_t projection = detail::kernels::int8_product_stack_bytes<1, width, width>;
    return {sizeof(qllama_attention) + sizeof(table_type), sizeof(output_row), sizeof(output_row), 0,
            2 * width + 2 * kv_width + (head > projection ? head : projection)};
  }

  friend constexpr bool operator==(const qllama_attention&, const qllama_attention&) = default;
};

/// A float `llama_attention` (out x in weights) quantized: each projection per channel (`quantize_linear`), wq, wk
/// and wv from the input's quantization `QIn` to Q's `query`, `key` and `value`, wo from `context` to `output`;
/// the scores in Q's `scores`.
///
/// | operand     | what                                                                          |
/// |-------------|-------------------------------------------------------------------------------|
/// | `attention` | `llama_attention<T, DModel, Heads, KeyValueHeads, Positions, Rotary, Base, out_by_in>` |
/// | result      | `qllama_attention<{Heads, KeyValueHeads, Positions, Rotary, Base}, Q.scores, Q.softmax, ...>` |
///
/// Example: `constexpr auto attention_q = ctattn::quantize_llama_attention<q_x, q>(block.attention);`
template <quantization QIn, llama_attention_quantizations Q, typename T, auto DModel, std::size_t Heads,
          std::size_t KeyValueHeads, std::size_t Positions, rotary_layout Rotary, std::size_t Base>
[[nodiscard]] constexpr auto quantize_llama_attention(
    const llama_attention<T, DModel, Heads, KeyValueHeads, Positions, Rotary, Base, out_by_in>& attention) noexcept {
  const auto wq = quantize_linear<QIn, Q.query, Q.weights, Q.granularity>(attention.wq);
  const auto wk = quantize_linear<QIn, Q.key, Q.weights, Q.granularity>(attention.wk);
  const auto wv = quantize_linear<QIn, Q.value, Q.weights, Q.granularity>(attention.wv);
  const auto wo = quantize_linear<Q.context, Q.output, Q.weights, Q.granularity>(attention.wo);
  return qllama_attention<llama_attention_shape{Heads, KeyValueHeads, Positions, Rotary, Base}, Q.scores, Q.softmax,
                          std::remove_cvref_t<decltype(wq)>, std::remove_cvref_t<decltype(wk)>,
                          std::remove_cvref_t<decltype(wv)>, std::remove_cvref_t<decltype(wo)>>{wq, wk, wv, wo};
}

/// `llama_block` in int8, the pre-norm blocks of `qtransformer_encoder_layer` with llama's sublayers:
///
///     h = x + attention(attention_norm(x));  out = h + feed_forward(ffn_norm(h))
///
/// both sums by the int8 ADD (h in `QSum1`, out in `QOut`), the norms `qrms_norm`s, the feed-forward block a
/// `qgated_feed_forward` (SwiGLU: silu's table, the int8 MUL).
///
/// | operand / member                 | shape / meaning                                          |
/// |----------------------------------|----------------------------------------------------------|
/// | `forward(x)`                     | `qmatrix<n, DModel, Q(x)>` -> `qmatrix<n, DModel, QOut>` |
/// | `attention`                      | `qllama_attention` reading attention_norm's quantization |
/// | `feed_forward`                   | `qgated_feed_forward` reading ffn_norm's                 |
/// | `attention_norm`, `ffn_norm`     | `qrms_norm<DModel, Q(x), ...>`, `qrms_norm<DModel, QSum1, ...>` |
/// | `cache_type<C>`, `output_row`    | the attention's cache; one row in QOut                   |
///
/// Example: `const auto y = block_q.forward(x_q);`
template <typename Attention, typename FeedForward, typename AttentionNorm, typename FfnNorm, quantization QSum1,
          quantization QOut>
struct qllama_block {
  using attention_type = Attention;
  static constexpr auto input_extent = AttentionNorm::input_extent;
  static constexpr auto output_extent = AttentionNorm::output_extent;
  static constexpr quantization input_quantization = AttentionNorm::input_quantization;
  static constexpr quantization output_quantization = QOut;
  static constexpr bool norm_first = true;
  /// The quantization of block k's residual sum: `QSum1`, then the block's output.
  template <std::size_t K>
  static constexpr quantization sum_quantization = K == 1 ? QSum1 : QOut;
  template <std::size_t Capacity>
  using cache_type = typename Attention::template cache_type<Capacity>;
  using output_row = basic_qmatrix<std::size_t{1}, output_extent, QOut>;

  Attention attention{};
  FeedForward feed_forward{};
  AttentionNorm attention_norm{};
  FfnNorm ffn_norm{};

  /// x's rules, checked before the block's flow (attention_norm's: x's width and quantization), so that a wrong
  /// input stops the build with their sentence first, not an error deep in the norm or the int8 ADD.
  template <typename X>
  using input_rules = detail::quantized_layer_norm_rules<X, AttentionNorm>;

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    if constexpr (!detail::first_broken<input_rules<X>>::check()) {
      return basic_qmatrix<X::row_extent, output_extent, QOut>{};
    } else {
      return detail::residual_blocks<true>(
          blocks(), x, [&](const auto& in) { return attention.forward(in); },
          [&](const auto& in) { return feed_forward.forward(in); });
    }
  }

  /// One token of decoding (`qllama_attention::step` inside the block's flow): writes the token's output row into
  /// `out`, row `cache.length` of `forward` over the whole sequence, bit for bit. False, with nothing changed, when
  /// the cache is full.
  ///
  /// | operand | shape                         |
  /// |---------|-------------------------------|
  /// | `x`     | `qmatrix<1, DModel, Q(x)>`    |
  /// | `cache` | `cache_type<Capacity>`        |
  /// | `out`   | `output_row`                  |
  ///
  /// Example: `if (!block_q.step(x_t, cache, y_t)) { /* the cache is full */ }`
  template <QuantizedMatrix X, typename Cache>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, output_row& out) const noexcept {
    if constexpr (!detail::first_broken<input_rules<X>>::check()) {
      return false;
    } else {
      if (cache.full()) return false;
      typename Attention::output_row attended;
      out = detail::residual_blocks<true>(
          blocks(), x,
          [&](const auto& in) {
            (void)attention.step(in, cache, attended);
            return attended;
          },
          [&](const auto& in) { return feed_forward.forward(in); });
      return true;
    }
  }

  /// The steps of the block's two residual blocks (ctattn/layers/detail/blocks.hpp), as the float block's:
  /// attention_norm or ffn_norm, and the int8 ADD into `sum_quantization<k>`.
  [[nodiscard]] constexpr auto blocks() const noexcept {
    return detail::int8_block_steps<qllama_block>(attention_norm, ffn_norm);
  }

  /// The memory of `forward(x)` on an X: the block's object, X and the result, and on the stack six n x DModel
  /// activations (as the float block counts them) with the deepest sublayer's stack.
  ///
  /// Example: `static_assert(decltype(block_q)::footprint_of<decltype(x_q)>().weight_bytes > 0);`
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using row_block = basic_qmatrix<X::row_extent, output_extent, QOut>;
    const std::size_t deepest = detail::largest(Attention::template footprint_of<X>().stack_bytes,
                                                FeedForward::template footprint_of<X>().stack_bytes,
                                                AttentionNorm::template footprint_of<X>().stack_bytes);
    return {sizeof(qllama_block) + sizeof(typename Attention::table_type), sizeof(X), sizeof(row_block), 0,
            6 * sizeof(row_block) + deepest};
  }

  /// The memory of one `step` over a cache of `Capacity` tokens: six rows and the deepest of the attention's step
  /// (with the row it writes) and the feed-forward block on a row.
  ///
  /// Example: `static_assert(decltype(block_q)::step_footprint<64>().stack_bytes > 0);`
  template <std::size_t Capacity>
  [[nodiscard]] static constexpr footprint step_footprint() noexcept {
    const std::size_t deepest =
        detail::largest(Attention::template step_footprint<Capacity>().stack_bytes + sizeof(output_row),
                        FeedForward::template footprint_of<output_row>().stack_bytes,
                        AttentionNorm::template footprint_of<output_row>().stack_bytes);
    return {sizeof(qllama_block) + sizeof(typename Attention::table_type), sizeof(output_row), sizeof(output_row), 0,
            6 * sizeof(output_row) + deepest};
  }

  friend constexpr bool operator==(const qllama_block&, const qllama_block&) = default;
};

namespace detail {
// The decode state's caches, one per block, each of its block's type, reached by index.
// Rationale: a base per cache, as qchain's storage (ctattn/quantized/model.hpp), which includes this header: the
// blocks' quantizations differ, so their caches are types of their own.
template <std::size_t I, typename Cache>
struct llama_cache_slot {
  Cache cache{};
  friend constexpr bool operator==(const llama_cache_slot&, const llama_cache_slot&) = default;
};
template <typename Indices, typename... Caches>
struct llama_cache_slots;
template <std::size_t... I, typename... Caches>
struct llama_cache_slots<std::index_sequence<I...>, Caches...> : llama_cache_slot<I, Caches>... {
  static constexpr std::size_t count = sizeof...(Caches);
  friend constexpr bool operator==(const llama_cache_slots&, const llama_cache_slots&) = default;
};
template <std::size_t I, typename Cache>
[[nodiscard]] constexpr Cache& cache_at(llama_cache_slot<I, Cache>& slot) noexcept {
  return slot.cache;
}
template <std::size_t I, typename Cache>
[[nodiscard]] constexpr const Cache& cache_at(const llama_cache_slot<I, Cache>& slot) noexcept {
  return slot.cache;
}

// Block I of an int8 model's blocks (a qchain's layer I).
template <typename Blocks, std::size_t I>
using llama_block_at = std::remove_cvref_t<decltype(std::declval<const Blocks&>().template layer<I>())>;
template <typename Blocks, std::size_t Capacity, typename Indices>
struct llama_caches_of;
template <typename Blocks, std::size_t Capacity, std::size_t... I>
struct llama_caches_of<Blocks, Capacity, std::index_sequence<I...>> {
  using type = llama_cache_slots<std::index_sequence<I...>,
                                 typename llama_block_at<Blocks, I>::template cache_type<Capacity>...>;
};
}  // namespace detail

namespace detail {
/// The int8 tied head's own data: the column starts of (x - z_x)(E - z_E)^T for each of the Vocabulary rows of the
/// token table E (`kernels::int8_column_starts`), made when the model is quantized.
// Rationale: made once, not at each call: summing the 512 x 64 table for every generated token took 53 K of a
// stories260K-shaped step's 754 K instructions on a M7; the starts are 4 bytes a token of the table's 64.
template <std::size_t Vocabulary>
struct qtied_head {
  std::int32_t column_starts[Vocabulary]{};
  friend constexpr bool operator==(const qtied_head&, const qtied_head&) = default;
};
template <typename Head>
inline constexpr bool is_qtied_head = false;
template <std::size_t Vocabulary>
inline constexpr bool is_qtied_head<qtied_head<Vocabulary>> = true;
}  // namespace detail

/// `llama_transformer` in int8: the int8 token table, the blocks (`qllama_block`s, each fed by the one before),
/// the final `qrms_norm`, and the head: tied, the int8 product of the normalized rows with the token table's int8
/// rows (x E^T, requantized once); untied, a per-channel `qlinear`. The logits are int8, in `QLogits`.
///
/// | operand / member  | shape / meaning                                                        |
/// |-------------------|------------------------------------------------------------------------|
/// | `forward(ids)`    | `std::array<I, n>` of ids, 0 < n <= Positions -> `qmatrix<n, Vocabulary, QLogits>` |
/// | `tok_embeddings`  | `qtoken_embedding<Vocabulary, DModel, Q(tok_embeddings.weight)>`       |
/// | `layers`          | the blocks (`layer<i>()`: a `qllama_block`)                            |
/// | `norm`            | `qrms_norm<DModel, ...>`                                               |
/// | `output`          | `qlinear<DModel, Vocabulary, ...>` (untied), or nothing (tied)         |
/// | `decode_state<C>` | one int8 `qkv_cache` of C tokens per block                             |
/// | `logits_row`      | `qmatrix<1, Vocabulary, QLogits>`                                      |
///
/// `step` checks what the float model's checks: a token outside the vocabulary or a full cache changes nothing and
/// says so (`decode_status`).
///
/// Example: `while (model_q.step(token, state, logits) == ctattn::decode_status::decoded) token = greedy_token(logits);`
template <std::size_t Layers, typename Embedding, typename Blocks, typename Norm, typename Head, quantization QLogits>
struct qllama_transformer {
  static constexpr std::size_t layer_count = Layers;
  static constexpr std::size_t vocabulary = decltype(Embedding::tokens)::rows;
  static constexpr auto model_extent = Norm::output_extent;
  static constexpr bool tied = detail::is_qtied_head<Head>;
  static constexpr quantization output_quantization = QLogits;
  template <std::size_t I>
  using block_type = detail::llama_block_at<Blocks, I>;
  using attention_type = typename block_type<0>::attention_type;
  static constexpr std::size_t positions = attention_type::positions;
  using logits_row = basic_qmatrix<std::size_t{1}, vocabulary, QLogits>;

  /// The int8 key/value caches of decoding `Capacity` tokens: one per block, all of the same length. Change them
  /// only through `step` and `clear`.
  template <std::size_t Capacity>
  struct decode_state {
    typename detail::llama_caches_of<Blocks, Capacity, std::make_index_sequence<Layers>>::type caches{};
    /// Tokens decoded so far.
    [[nodiscard]] constexpr std::size_t length() const noexcept { return detail::cache_at<0>(caches).length; }
    /// Whether a block's cache is full.
    [[nodiscard]] constexpr bool full() const noexcept {
      return [&]<std::size_t... L>(std::index_sequence<L...>) {
        return (detail::cache_at<L>(caches).full() || ...);
      }(std::make_index_sequence<Layers>{});
    }
    constexpr void clear() noexcept {
      [&]<std::size_t... L>(std::index_sequence<L...>) {
        (detail::cache_at<L>(caches).clear(), ...);
      }(std::make_index_sequence<Layers>{});
    }
  };

  Embedding tok_embeddings{};
  Blocks layers{};
  Norm norm{};
  [[no_unique_address]] Head output{};

  template <std::integral I, std::size_t N>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids) const noexcept
      -> basic_qmatrix<(N > 0 ? N : 1), vocabulary, QLogits> {
    using input_rules = rule_list<
        shape_error::count_must_be_positive<op::token_embedding, count<N>>,
        shape_error::sequence_must_fit_position_table<op::llama_attention, dim<unnamed, N>, dim<unnamed, positions>>>;
    basic_qmatrix<(N > 0 ? N : 1), vocabulary, QLogits> logits;
    if constexpr (detail::first_broken<input_rules>::check()) {
      head(logits, normalize(layers.forward(tok_embeddings.forward(ids)), norm));
    } else {
      logits = {};
    }
    return logits;
  }

  /// One token of decoding through every block: `token` at position `state.length()`; writes its int8 logits (those
  /// of the next token) into `logits`, row `state.length()` of `forward` over the whole sequence, bit for bit.
  /// Returns `decode_status::decoded`, or, changing nothing, `cache_full` or `token_outside_vocabulary`.
  ///
  /// | operand  | shape                                     |
  /// |----------|-------------------------------------------|
  /// | `token`  | an integer id, checked against Vocabulary |
  /// | `state`  | `decode_state<Capacity>`, Capacity <= Positions |
  /// | `logits` | `logits_row`                              |
  ///
  /// Example: `if (model_q.step(token, state, logits) != ctattn::decode_status::decoded) { /* stop */ }`
  template <std::integral I, std::size_t Capacity>
    requires(!std::same_as<I, bool>)
  [[nodiscard]] constexpr decode_status step(I token, decode_state<Capacity>& state,
                                             logits_row& logits) const noexcept {
    if constexpr (!shape_error::sequence_must_fit_position_table<op::llama_attention, dim<unnamed, Capacity>,
                                                                 dim<unnamed, positions>>::check()) {
      return decode_status::cache_full;
    } else {
      if (!detail::id_inside_vocabulary(token, vocabulary)) return decode_status::token_outside_vocabulary;
      if (state.full()) return decode_status::cache_full;
      const auto id = static_cast<std::size_t>(token);
      basic_qmatrix<std::size_t{1}, model_extent, Embedding::output_quantization> x;
      for (std::size_t j = 0; j < decltype(x)::cols; ++j) x.elements[0][j] = tok_embeddings.tokens.elements[id][j];
      head(logits, normalize(step_blocks<0>(x, state), norm));
      return decode_status::decoded;
    }
  }

  /// The output head on the final norm's int8 rows `x`: tied, (x - z_x)(E - z_E)^T requantized to QLogits with
  /// s_x s_E / s_logits; untied, `project(x, output)`.
  ///
  /// | operand  | shape                            |
  /// |----------|----------------------------------|
  /// | `logits` | `qmatrix<n, Vocabulary, QLogits>` |
  /// | `x`      | `qmatrix<n, DModel, Q(norm)>`     |
  ///
  /// Example: `model_q.head(logits, normed_q);`
  template <QuantizedMatrix Y, QuantizedMatrix X>
  constexpr void head(Y& logits, const X& x) const noexcept {
    if constexpr (tied) {
      constexpr math::quantized_multiplier multiplier =
          math::quantize_multiplier(X::quant.scale() * Embedding::output_quantization.scale() / QLogits.scale());
      // The starts made at quantization hold for rows of the final norm's zero point (the model's own); rows of
      // another make theirs.
      if constexpr (X::quant.zero_point == Norm::output_quantization.zero_point) {
        detail::kernels::int8_window_product_from_starts<X::rows, X::cols, vocabulary>(
            x.elements, 0, 0, tok_embeddings.tokens.elements, 0, 0, Embedding::output_quantization.zero_point,
            output.column_starts, multiplier, QLogits.zero_point, logits.elements, 0, 0);
      } else {
        detail::kernels::int8_product_transposed_requantized(
            x.elements, tok_embeddings.tokens.elements, X::quant.zero_point, Embedding::output_quantization.zero_point,
            multiplier, QLogits.zero_point, logits.elements);
      }
    } else {
      logits = project(x, output);
    }
  }

  /// The memory of `forward(ids)` on n ids (`Ids`, a `std::array<I, n>`): the model and its rotary table, the ids
  /// and the logits, and on the stack the embedded rows, the blocks' result and stack, and the norm's rows.
  ///
  /// Example: `static_assert(M::footprint_of<std::array<int, 8>>().output_bytes == 8 * M::vocabulary);`
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = std::tuple_size_v<Ids>;
    using x_type = basic_qmatrix<n, model_extent, Embedding::output_quantization>;
    const footprint blocks = Blocks::template footprint_of<x_type>();
    return {sizeof(qllama_transformer) + sizeof(typename attention_type::table_type), sizeof(Ids),
            sizeof(basic_qmatrix<n, vocabulary, QLogits>), 0, 2 * sizeof(x_type) + detail::held(blocks)};
  }

  /// The memory of decoding with a `decode_state<Capacity>`: the model and its rotary table (weights), the state
  /// (workspace), the logits row (output), and one `step` on the stack: the token's row and the norm's, a block's
  /// input and output row, and the deepest block's step.
  ///
  /// Example: `static_assert(M::decode_footprint<64>().ram_bytes() <= 64 * 1024);`
  template <std::size_t Capacity>
  [[nodiscard]] static constexpr footprint decode_footprint() noexcept {
    using row = basic_qmatrix<std::size_t{1}, model_extent, QLogits>;
    const std::size_t deepest = [&]<std::size_t... L>(std::index_sequence<L...>) {
      std::size_t most = 0;
      ((most = detail::largest(most, block_type<L>::template step_footprint<Capacity>().stack_bytes)), ...);
      return most;
    }(std::make_index_sequence<Layers>{});
    return {sizeof(qllama_transformer) + sizeof(typename attention_type::table_type), 0, sizeof(logits_row),
            sizeof(decode_state<Capacity>), 4 * sizeof(row) + deepest};
  }

  // Rationale: block by block, not defaulted: a qchain whose first layer has an input quantization (a block's) has no
  // operator== (its base `detail::input_quantization_of` defines none).
  friend constexpr bool operator==(const qllama_transformer& a, const qllama_transformer& b) noexcept {
    const bool blocks = [&]<std::size_t... L>(std::index_sequence<L...>) {
      return ((a.layers.template layer<L>() == b.layers.template layer<L>()) && ...);
    }(std::make_index_sequence<Layers>{});
    return blocks && a.tok_embeddings == b.tok_embeddings && a.norm == b.norm && a.output == b.output;
  }

 private:
  // Blocks L to the last, each stepping on the one before's row with its own cache.
  // Rationale: one block at a time, each its own call, since each block's rows have a quantization (a type) of
  // their own.
  template <std::size_t L, typename Row, std::size_t Capacity>
  [[nodiscard]] constexpr auto step_blocks(const Row& x, decode_state<Capacity>& state) const noexcept {
    if constexpr (L == Layers) {
      return x;
    } else {
      typename block_type<L>::output_row y;
      (void)layers.template layer<L>().step(x, detail::cache_at<L>(state.caches), y);
      return step_blocks<L + 1>(y, state);
    }
  }
};

/// The id of the largest int8 logit, the first of equal ones (`torch.argmax` on the dequantized row: the
/// quantization keeps the order): greedy decoding's next token in int8.
///
/// | operand    | shape                          |
/// |------------|--------------------------------|
/// | `logits`   | `qmatrix<1, Vocabulary, Q>`    |
///
/// Example: `token = ctattn::greedy_token(logits_q);`
template <auto V, quantization Q>
[[nodiscard]] constexpr std::size_t greedy_token(const basic_qmatrix<std::size_t{1}, V, Q>& logits) noexcept {
  return detail::kernels::int8_first_largest(&logits.elements[0][0], basic_qmatrix<std::size_t{1}, V, Q>::cols);
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LLAMA_HPP
