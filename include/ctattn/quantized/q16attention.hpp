// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_Q16ATTENTION_HPP
#define CTATTN_QUANTIZED_Q16ATTENTION_HPP

/// \file
/// Attention in 16x8 (TFLite's int16 activations with int8 weights): softmax(Q K^T / sqrt(d_k)) V on int16 queries,
/// keys and values, composed of TFLite's 16x8 operators as a converted model runs them, bit for bit with each:
///
/// | step    | TFLite operator                  | ctattn                                                   |
/// |---------|----------------------------------|----------------------------------------------------------|
/// | Q, K, V | FULLY_CONNECTED 16x8             | `project(x16, q16linear)` (multi-head attention)         |
/// | scores  | BATCH_MATMUL int16 (adj_y)       | the int64 sums of q k, the multiplier q_scale k_scale / (sqrt(d_k) scores_scale): the 1/sqrt(d_k) folded in, as a converter folds a constant MUL |
/// | weights | SOFTMAX int16 (beta 1)           | each query's softmax over the keys the mask lets it see; hidden keys weigh 0 |
/// | context | BATCH_MATMUL int16               | the int64 sums of w v, the multiplier (1/32768) v_scale / out_scale |
/// | output  | FULLY_CONNECTED 16x8             | `project(context, W_O)`                                  |
///
/// | entity                                            | what                                                |
/// |---------------------------------------------------|-----------------------------------------------------|
/// | `scaled_dot_product_attention<Scores, Out>(q16, k16, v16[, mask])` | one head, `q16matrix<n_q, d_v, Out>` |
/// | `multi_head_attention<Scores>(x16[, memory16], weights16[, mask])` | `qmulti_head_attention_weights` of four `q16linear`s |
///
/// Integers throughout: constant evaluation and every target give the same bits. The two products run through the
/// int16 batch-matmul kernel (kernels/int16.hpp: the Cortex-M DSP's `smlald`, Helium's `vmlaldava.s16`, or the loop).
/// Every pair of query and key is scored, a window mask's hidden keys too (their weights are 0).
///
/// Example:
/// \code
///   constexpr auto w16 = ctattn::make_qmulti_head_attention_weights<4>(wq16, wk16, wv16, wo16);   // q16linear each
///   const auto y16 = ctattn::multi_head_attention<q_scores16>(x16, w16, ctattn::causal);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/kernels/int16.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/attention.hpp"
#include "ctattn/quantized/int16.hpp"
#include "ctattn/quantized/q16linear.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/softmax.hpp"

namespace ctattn {

namespace detail {

// The multipliers of one 16x8 attention: the scores' q_scale k_scale / (sqrt(d_k) scores_scale), the softmax's input
// multiplier (TFLite's, for Scores), the context's (1/32768) v_scale / out_scale; each in double.
template <quantization QQ, quantization QK, quantization QV, quantization Scores, quantization Out, std::size_t DK>
struct int16_attention_multipliers {
  static constexpr double scores_real =
      QQ.scale() * QK.scale() / (math::sqrt(static_cast<double>(DK)) * Scores.scale());
  static constexpr double output_real = int16_softmax_output_quantization.scale() * QV.scale() / Out.scale();
  static constexpr math::quantized_multiplier scores = math::quantize_multiplier(scores_real);
  static constexpr math::quantized_multiplier softmax = math::quantize_multiplier(int16_softmax_input_real<Scores>);
  static constexpr math::quantized_multiplier output = math::quantize_multiplier(output_real);
};

// The scales' rules of one 16x8 attention: each product's multiplier shifts left by 7 at most (TFLite's BATCH_MATMUL
// bound), the softmax's input scale is below 5.
template <typename Operation, quantization QQ, quantization QK, quantization QV, quantization Scores, quantization Out,
          std::size_t DK>
struct int16_attention_scales {
  using multipliers = int16_attention_multipliers<QQ, QK, QV, Scores, Out, DK>;
  static constexpr bool scores_fit = shift_at_most(multipliers::scores_real, 7);
  static constexpr bool softmax_fits = shift_at_most(int16_softmax_input_real<Scores>, 15);
  static constexpr bool output_fits = shift_at_most(multipliers::output_real, 7);
  using weights = quantization_constant<int16_softmax_output_quantization>;
  using rules = rule_list<
      shape_error::int16_scales_must_suit_the_kernel<Operation, scores_fit, quantization_constant<QQ>,
                                                     quantization_constant<QK>, quantization_constant<Scores>>,
      shape_error::int16_scales_must_suit_the_kernel<Operation, softmax_fits, quantization_constant<Scores>>,
      shape_error::int16_scales_must_suit_the_kernel<Operation, output_fits, weights, quantization_constant<QV>,
                                                     quantization_constant<Out>>>;
};

// Rationale: every pair of query and key is scored, a window mask's hidden keys too (their weights are 0): the
// 16x8 tier's first attention takes the products' fast kernels over whole matrices; scoring only a window's keys,
// O(r N) as int8 attention does, is left to a later step.
template <quantization Scores, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Mask,
          typename Out>
constexpr void int16_attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out,
                            const int8_head_columns& columns) noexcept {
  using multipliers = int16_attention_multipliers<Q::quant, K::quant, V::quant, Scores, Out::quant, DK>;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  // The head's columns as the products' operands: Q and K by rows of DK, V transposed (DV rows of n_kv).
  std::int16_t queries[n_q][DK];
  std::int16_t keys[n_kv][DK];
  std::int16_t values[DV][n_kv];
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t t = 0; t < DK; ++t) queries[i][t] = q.elements[i][columns.query + t];
  }
  for (std::size_t j = 0; j < n_kv; ++j) {
    for (std::size_t t = 0; t < DK; ++t) keys[j][t] = k.elements[j][columns.key + t];
    for (std::size_t c = 0; c < DV; ++c) values[c][j] = v.elements[j][columns.value + c];
  }
  std::int16_t scores[n_q][n_kv];
  kernels::int16_product_transposed(queries, keys, multipliers::scores, scores);
  std::int16_t weights[n_q][n_kv];
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t j = 0; j < n_kv; ++j) weights[i][j] = 0;
    const key_range range = mask.keys(i, n_q, n_kv);
    if (range.end <= range.begin) continue;
    if constexpr (Mask::checks_each_key) {
      // The visible keys gathered, their softmax taken, the weights put back in their places.
      std::int16_t seen_scores[n_kv];
      std::int16_t seen_weights[n_kv];
      std::size_t seen = 0;
      for (std::size_t j = range.begin; j < range.end; ++j) {
        if (mask.allowed(i, j)) seen_scores[seen++] = scores[i][j];
      }
      if (seen == 0) continue;
      kernels::int16_softmax_row<multipliers::softmax>(seen_scores, seen_weights, seen);
      seen = 0;
      for (std::size_t j = range.begin; j < range.end; ++j) {
        if (mask.allowed(i, j)) weights[i][j] = seen_weights[seen++];
      }
    } else {
      kernels::int16_softmax_row<multipliers::softmax>(scores[i] + range.begin, weights[i] + range.begin,
                                                       range.end - range.begin);
    }
  }
  std::int16_t context[n_q][DV];
  kernels::int16_product_transposed(weights, values, multipliers::output, context);
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output + c] = context[i][c];
  }
}

// The arrays 16x8 self-attention over N rows declares, in bytes (qmulti_head_attention_weights::footprint_of): the
// context beside Q, K and V's projections while the heads attend, and the larger of a head's arrays (int16_attend's,
// every pair scored) and a projection's kernel scratch; then the context beside W_O's scratch.
template <typename W, std::size_t N>
[[nodiscard]] constexpr std::size_t int16_attention_stack_bytes() noexcept {
  using query = decltype(W::query);
  using value = decltype(W::value);
  using output = decltype(W::output);
  constexpr std::size_t key_width = query::outputs / W::heads;
  constexpr std::size_t value_width = value::outputs / W::heads;
  constexpr std::size_t element = sizeof(std::int16_t);
  constexpr std::size_t context = element * N * value::outputs;
  constexpr std::size_t projections = element * N * (query::outputs + decltype(W::key)::outputs + value::outputs);
  constexpr std::size_t head = element * (2 * N * key_width + 2 * value_width * N + 2 * N * N + 2 * N) +
                               kernels::int16_product_stack_bytes<N, (key_width > N ? key_width : N)>;
  constexpr std::size_t input_projection = kernels::int16_product_stack_bytes<N, query::inputs>;
  constexpr std::size_t output_projection = kernels::int16_product_stack_bytes<N, output::inputs>;
  constexpr std::size_t attending = projections + (head > input_projection ? head : input_projection);
  return context + (attending > output_projection ? attending : output_projection);
}

template <typename Q, typename K, typename V, typename Mask, quantization Scores, quantization Out>
using int16_attention_rules = rule_list<
    shape_error::inner_dimensions_must_match<op::int16_attention, dim_of<Q::column_extent>, dim_of<K::column_extent>>,
    shape_error::rows_must_match<op::int16_attention, dim_of<K::row_extent>, dim_of<V::row_extent>>,
    shape_error::int8_mask_must_hide_keys<op::int16_attention, Mask>,
    mask_rules<op::int16_attention, std::int16_t, Q::row_extent, K::row_extent, Mask>, int16_quantization_rules<Scores>,
    int16_quantization_rules<Out>,
    typename int16_attention_scales<op::int16_attention, Q::quant, K::quant, V::quant, Scores, Out, Q::cols>::rules>;

// The rules of 16x8 multi-head attention of x over `Memory` (x itself for self-attention).
template <typename X, typename Memory, typename W, typename Mask, quantization Scores>
using int16_multi_head_rules = rule_list<
    typename W::rules,
    shape_error::query_and_key_widths_must_match<op::int16_multi_head_attention,
                                                 dim_of<decltype(W::query)::output_extent>,
                                                 dim_of<decltype(W::key)::output_extent>>,
    shape_error::inner_dimensions_must_match<op::int16_multi_head_attention, dim_of<decltype(W::value)::output_extent>,
                                             dim_of<decltype(W::output)::input_extent>>,
    int16_projection_rules<X, decltype(W::query)>, int16_projection_rules<Memory, decltype(W::key)>,
    int16_projection_rules<Memory, decltype(W::value)>,
    shape_error::int8_mask_must_hide_keys<op::int16_multi_head_attention, Mask>,
    mask_rules<op::int16_multi_head_attention, std::int16_t, X::row_extent, Memory::row_extent, Mask>,
    int16_quantization_rules<Scores>,
    typename int16_attention_scales<op::int16_multi_head_attention, decltype(W::query)::output_quantization,
                                    decltype(W::key)::output_quantization, decltype(W::value)::output_quantization,
                                    Scores, decltype(W::output)::input_quantization,
                                    decltype(W::query)::outputs / W::heads>::rules>;
}  // namespace detail

/// softmax(Q K^T / sqrt(d_k)) V in 16x8, each query over the keys `mask` lets it see (the header's steps):
/// scores = clamp(int64 sum q k times q_scale k_scale / (sqrt(d_k) scores_scale), reduced to 16 bits), weights =
/// TFLite's int16 softmax of the visible scores (scale 1/32768; hidden keys 0), output = clamp(int64 sum w v times
/// (1/32768) v_scale / out_scale). A query that sees no key gets 0.
///
/// | operand | shape                                      |
/// |---------|--------------------------------------------|
/// | `q`     | `q16matrix<n_q, d_k, QQ>`                  |
/// | `k`     | `q16matrix<n_kv, d_k, QK>`                 |
/// | `v`     | `q16matrix<n_kv, d_v, QV>`                 |
/// | `mask`  | a mask that hides keys (ctattn/attention/mask.hpp), by default `no_mask` |
/// | result  | `q16matrix<n_q, d_v, Out>`                 |
///
/// Rules: q and k have one width (`inner_dimensions_must_match`), k and v one number of rows (`rows_must_match`); the
/// mask hides keys and fits the scores; `Scores` and `Out` are int16 quantizations (zero point 0); the scales suit
/// TFLite's int16 steps (`int16_scales_must_suit_the_kernel`: each product's multiplier below 2^7, Scores' scale
/// below 5).
///
/// Example:
/// \code
///   const auto context16 = ctattn::scaled_dot_product_attention<q_scores16, q_context16>(q16, k16, v16, ctattn::causal);
/// \endcode
template <quantization Scores, quantization Out, Quantized16Matrix Q, Quantized16Matrix K, Quantized16Matrix V,
          AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v,
                                                          const Mask& mask = {}) noexcept
    -> basic_q16matrix<Q::row_extent, V::column_extent, Out> {
  basic_q16matrix<Q::row_extent, V::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::int16_attention_rules<Q, K, V, Mask, Scores, Out>>::check()) {
    detail::int16_attend<Scores, Q::cols, V::cols>(q, k, v, mask, out, {});
  }
  return out;
}

/// Multi-head attention of x over a memory in 16x8 (cross-attention): Q projected from x, K and V from the memory,
/// each by its `q16linear`, each head's 16x8 attention (`scaled_dot_product_attention`'s steps, its scores in
/// `Scores`, its output in W_O's input quantization) written into its columns of the context, then W_O.
///
/// | operand   | shape                                               |
/// |-----------|-----------------------------------------------------|
/// | `x`       | `q16matrix<n, d_model, QX>`                         |
/// | `memory`  | `q16matrix<m, d_model, QM>`                         |
/// | `weights` | `qmulti_head_attention_weights<Heads, ...>` of four `q16linear`s: W_Q reads QX, W_K and W_V read QM |
/// | `mask`    | a mask that hides keys, n x m, by default `no_mask` |
/// | result    | `q16matrix<n, d_out, W_O's output quantization>`    |
///
/// Rules: `Heads` divides the projections' widths; Q and K have one width; V's width is W_O's input; x and the memory
/// have their projections' width and quantization; the mask hides keys and fits n x m; the scales suit TFLite's int16
/// steps.
///
/// Example: `const auto y16 = ctattn::multi_head_attention<q_scores16>(x16, memory16, cross_weights16);`
template <quantization Scores, Quantized16Matrix X, Quantized16Matrix Memory, std::size_t Heads, typename Query,
          typename Key, typename Value, typename Output, AttentionMask Mask = no_mask_type>
  requires detail::is_q16linear<Query>
[[nodiscard]] constexpr auto multi_head_attention(
    const X& x, const Memory& memory, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept
    -> basic_q16matrix<X::row_extent, Output::output_extent, Output::output_quantization> {
  using W = qmulti_head_attention_weights<Heads, Query, Key, Value, Output>;
  if constexpr (!detail::first_broken<detail::int16_multi_head_rules<X, Memory, W, Mask, Scores>>::check()) {
    return {};
  } else {
    constexpr std::size_t key_width = Query::outputs / Heads;
    constexpr std::size_t value_width = Value::outputs / Heads;
    basic_q16matrix<X::row_extent, Value::output_extent, Output::input_quantization> context;
    {
      const auto q = project(x, weights.query);
      const auto k = project(memory, weights.key);
      const auto v = project(memory, weights.value);
      for (std::size_t h = 0; h < Heads; ++h) {
        detail::int16_attend<Scores, key_width, value_width>(
            q, k, v, mask, context, {h * key_width, h * key_width, h * value_width, h * value_width});
      }
    }
    return project(context, weights.output);
  }
}

/// Multi-head self-attention in 16x8: `multi_head_attention<Scores>(x, x, weights, mask)`.
///
/// | operand   | shape                                               |
/// |-----------|-----------------------------------------------------|
/// | `x`       | `q16matrix<n, d_model, QX>`                         |
/// | `weights` | `qmulti_head_attention_weights<Heads, ...>` of four `q16linear`s |
/// | `mask`    | a mask that hides keys, by default `no_mask`        |
/// | result    | `q16matrix<n, d_out, W_O's output quantization>`    |
///
/// Rules: as cross-attention's, with the memory x itself.
///
/// Example: `const auto y16 = ctattn::multi_head_attention<q_scores16>(x16, weights16, ctattn::causal);`
template <quantization Scores, Quantized16Matrix X, std::size_t Heads, typename Query, typename Key, typename Value,
          typename Output, AttentionMask Mask = no_mask_type>
  requires detail::is_q16linear<Query>
[[nodiscard]] constexpr auto multi_head_attention(
    const X& x, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept
    -> basic_q16matrix<X::row_extent, Output::output_extent, Output::output_quantization> {
  return multi_head_attention<Scores>(x, x, weights, mask);
}

/// 16x8 attention with its softmax method named, as int8 attention takes one: `softmax_method::tflite` is the method
/// 16x8 attention has (TFLite's int16 SOFTMAX), and computes as without it; `softmax_method::rounded` has no int16
/// form and stops the build (`int16_softmax_is_tflites`).
///
/// Example: `ctattn::multi_head_attention<q_scores16, ctattn::softmax_method::tflite>(x16, weights16)`, the same as
/// `ctattn::multi_head_attention<q_scores16>(x16, weights16)`.
template <quantization Scores, softmax_method Softmax, Quantized16Matrix X, Quantized16Matrix Memory, std::size_t Heads,
          typename Query, typename Key, typename Value, typename Output, AttentionMask Mask = no_mask_type>
  requires detail::is_q16linear<Query>
[[nodiscard]] constexpr auto multi_head_attention(
    const X& x, const Memory& memory, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept {
  static_assert((shape_error::int16_softmax_is_tflites < op::int16_multi_head_attention,
                 Softmax == softmax_method::tflite > ::check(), true));
  return multi_head_attention<Scores>(x, memory, weights, mask);
}

/// \copydoc multi_head_attention(const X&, const Memory&, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>&, const Mask&)
template <quantization Scores, softmax_method Softmax, Quantized16Matrix X, std::size_t Heads, typename Query,
          typename Key, typename Value, typename Output, AttentionMask Mask = no_mask_type>
  requires detail::is_q16linear<Query>
[[nodiscard]] constexpr auto multi_head_attention(
    const X& x, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept {
  return multi_head_attention<Scores, Softmax>(x, x, weights, mask);
}

/// \copydoc multi_head_attention(const X&, const Memory&, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>&, const Mask&)
template <quantization Scores, quantization Out, softmax_method Softmax, Quantized16Matrix Q, Quantized16Matrix K,
          Quantized16Matrix V, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v,
                                                          const Mask& mask = {}) noexcept {
  static_assert((shape_error::int16_softmax_is_tflites < op::int16_attention,
                 Softmax == softmax_method::tflite > ::check(), true));
  return scaled_dot_product_attention<Scores, Out>(q, k, v, mask);
}

/// Attention with operands of two widths: an int8 matrix among int16 ones, an int8 input to 16x8 projections or an
/// int16 input to int8 ones. Refused at compile time (`quantized_operands_must_have_one_width`), with the conversion to
/// write.
///
/// Example: `ctattn::multi_head_attention<q_scores16>(ctattn::quantize<q_x16, std::int16_t>(x8), weights16)` rather
/// than `ctattn::multi_head_attention<q_scores16>(x8, weights16)`.
template <quantization Scores, detail::AnyQuantizedMatrix X, detail::AnyQuantizedMatrix Memory, std::size_t Heads,
          typename Query, typename Key, typename Value, typename Output, AttentionMask Mask = no_mask_type>
  requires(Quantized16Matrix<X> != detail::is_q16linear<Query> ||
           Quantized16Matrix<Memory> != detail::is_q16linear<Query>)
constexpr auto multi_head_attention(const X&, const Memory& memory,
                                    const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>&,
                                    const Mask& = {}) noexcept {
  using Refused = std::conditional_t<Quantized16Matrix<X> != detail::is_q16linear<Query>, X, Memory>;
  static_assert(
      (shape_error::quantized_operands_must_have_one_width<op::int16_multi_head_attention, Refused, Query>::check(),
       true));
  (void)memory;
  return Refused{};
}

/// \copydoc multi_head_attention(const X&, const Memory&, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>&, const Mask&)
template <quantization Scores, detail::AnyQuantizedMatrix X, std::size_t Heads, typename Query, typename Key,
          typename Value, typename Output, AttentionMask Mask = no_mask_type>
  requires(Quantized16Matrix<X> != detail::is_q16linear<Query>)
constexpr auto multi_head_attention(const X& x,
                                    const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
                                    const Mask& mask = {}) noexcept {
  return multi_head_attention<Scores>(x, x, weights, mask);
}

/// \copydoc multi_head_attention(const X&, const Memory&, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>&, const Mask&)
template <quantization Scores, quantization Out, detail::AnyQuantizedMatrix Q, detail::AnyQuantizedMatrix K,
          detail::AnyQuantizedMatrix V, AttentionMask Mask = no_mask_type>
  requires(!(QuantizedMatrix<Q> && QuantizedMatrix<K> && QuantizedMatrix<V>) &&
           !(Quantized16Matrix<Q> && Quantized16Matrix<K> && Quantized16Matrix<V>))
constexpr auto scaled_dot_product_attention(const Q&, const K&, const V&, const Mask& = {}) noexcept {
  using Other = std::conditional_t<Quantized16Matrix<Q> != Quantized16Matrix<K>, K, V>;
  static_assert((shape_error::quantized_operands_must_have_one_width<op::int16_attention, Q, Other>::check(), true));
  return Q{};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_Q16ATTENTION_HPP
