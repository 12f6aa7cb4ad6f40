// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_ATTENTION_HPP
#define CTATTN_QUANTIZED_ATTENTION_HPP

/// \file
/// Attention in int8: softmax(Q K^T / sqrt(d_k)) V with int8 operands, int32 sums and the fixed-point
/// requantizations of ctattn/math/fixed_point.hpp, the scale 1 / sqrt(d_k) folded by the compiler into the scores'
/// multiplier; masks that hide keys; and multi-head attention over int8 projections. Integers only, so constant
/// evaluation and every target give the same bits. The products run through the int8 kernels
/// (ctattn/kernels/int8.hpp), which choose the target's SIMD or DSP form.

#include <cstddef>
#include <cstdint>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/linear.hpp"
#include "ctattn/quantized/q16linear.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/softmax.hpp"

namespace ctattn {

namespace detail {

// The fixed-point multipliers of one int8 attention: scores from q_scale k_scale / (sqrt(d_k) scores_scale), the
// output from the softmax's 1/256 times v_scale / out_scale.
template <quantization QQ, quantization QK, quantization QV, quantization Scores, quantization Out, std::size_t DK>
struct int8_attention_multipliers {
  static constexpr math::quantized_multiplier scores =
      math::quantize_multiplier(QQ.scale() * QK.scale() / (math::sqrt(static_cast<double>(DK)) * Scores.scale()));
  static constexpr math::quantized_multiplier output =
      math::quantize_multiplier(softmax_output_quantization.scale() * QV.scale() / Out.scale());
};

// Where one head's columns start in Q, K, V and the output.
struct int8_head_columns {
  std::size_t query = 0;
  std::size_t key = 0;
  std::size_t value = 0;
  std::size_t output = 0;
};

/// V^T of an int8 V (n x d_v): d_v x n, its rows the value columns, in V's quantization.
template <QuantizedMatrix V>
[[nodiscard]] constexpr auto transposed_values(const V& v) noexcept {
  basic_qmatrix<V::column_extent, V::row_extent, V::quant> t;
  for (std::size_t j = 0; j < V::rows; ++j) {
    for (std::size_t c = 0; c < V::cols; ++c) t.elements[c][j] = v.elements[j][c];
  }
  return t;
}

/// An int8 matrix's elements read as a `qmatrix<R, C, Q>` (`int8_attend` reads `elements`, `rows` and `quant`):
/// Q written into the bytes of the context that replaces it (`multi_head_attention`).
template <std::size_t R, std::size_t C, quantization Q>
struct qmatrix_view {
  static constexpr quantization quant = Q;
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
  const std::int8_t (&elements)[R][C];
};

/// Whether a mask restricts each query to a window of keys (`sliding_window`, `causal_sliding_window`, or a
/// combination with one): int8 attention then scores only the keys each query sees, O(r N), instead of all pairs.
template <typename Mask>
constexpr bool int8_mask_visits_a_window() noexcept {
  if constexpr (requires { Mask::radius; }) {
    return true;
  } else if constexpr (requires { typename Mask::first_mask; }) {
    return int8_mask_visits_a_window<typename Mask::first_mask>() ||
           int8_mask_visits_a_window<typename Mask::second_mask>();
  } else {
    return false;
  }
}

/// One query row's int8 attention for G query heads that share one key/value head (a decoding step; G > 1 with
/// grouped-query attention): head i's query columns q[0, query + i DK, + DK) and output columns
/// out[0, output + i DV, + DV), the keys k[:, key, key + DK) and values v[:, value, value + DV) the group's. Each
/// head's scores, softmax and weighted values as `int8_attend` computes them for one query, the same bits; the
/// scores (`kernels::int8_group_dot_rows`) and the weighted values (the backend's `weighted_rows`) read each cached
/// row once for the G heads.
template <quantization Scores, softmax_method Softmax, std::size_t DK, std::size_t DV, std::size_t G, typename Q,
          typename K, typename V, typename Mask, typename Out>
constexpr void int8_attend_group(const Q& q, const K& k, const V& v, const Mask& mask, Out& out,
                                 const int8_head_columns& columns) noexcept {
  static_assert(Q::rows == 1, "one query row: a decoding step");
  using multipliers = int8_attention_multipliers<Q::quant, K::quant, V::quant, Scores, Out::quant, DK>;
  constexpr std::size_t n_kv = K::rows;
  using softmax = softmax_kernel<Softmax, Scores>;
  constexpr const auto& table = softmax::table;
  const key_range range = mask.keys(0, 1, n_kv);
  const std::size_t seen = range.end > range.begin ? range.end - range.begin : 0;
  // Rationale: left uninitialized (C++20 allows it in constant evaluation): each entry is written before it is
  // read, and only within the query's range of keys; zeroing them for every query cost more than the softmax.
  std::int32_t sums[G][n_kv > DV ? n_kv : DV];
  std::int8_t scores[G][n_kv];
  std::int8_t weights[G][n_kv];
  bool visible[n_kv];
  if (seen > 0) {
    kernels::int8_group_dot_rows<DK, G>(q.elements, 0, columns.query, Q::quant.zero_point, k.elements, range.begin,
                                        columns.key, K::quant.zero_point, seen, sums);
  }
  // Rationale: only where the query sees a key (a mask's range may begin past n_kv then, and scores + begin
  // must not be formed). GCC 12 at -O3 reports the vectorized loop of this call as writing before `scores` (it
  // does not follow that range.begin + seen <= n_kv); the warning is off for this call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
  for (std::size_t i = 0; i < G && seen > 0; ++i) {
    kernels::requantize_values<multipliers::scores>(sums[i], Scores.zero_point, scores[i] + range.begin, seen);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  const bool* filter = nullptr;
  if constexpr (Mask::checks_each_key) {
    for (std::size_t j = range.begin; j < range.end; ++j) visible[j] = mask.allowed(0, j);
    filter = visible;
  }
  // Rationale: GCC 12 for AArch64 reports scores as maybe uninitialized here (it does not follow that the loop
  // above wrote exactly [range.begin, range.end), the range the softmax reads); zeroing the row for every query
  // would cost O(n_kv) per query and undo the sliding window's O(r N), so the warning is off for this call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  for (std::size_t i = 0; i < G; ++i) {
    kernels::int8_softmax_row<typename softmax::method>(scores[i], weights[i], range.begin, range.end, table.data(),
                                                        filter);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  // sums[i][c] = sum_j (w_ij + 128)(v[j][value + c] - v_zero), key by key over the row of each: the weights' zero
  // point is -128, and a hidden key's weight is -128.
  if (std::is_constant_evaluated() || range.end <= range.begin ||
      !kernels::backend_weighted_rows<DV>(weights, range.begin, softmax_output_quantization.zero_point,
                                          &v.elements[range.begin][columns.value], V::cols, V::quant.zero_point,
                                          range.end - range.begin, sums)) {
    for (std::size_t i = 0; i < G; ++i) {
      // Rationale: unrolled over the head's columns (up to 16), so that the sums stay in registers.
      std::int32_t head_sums[DV]{};
      for (std::size_t j = range.begin; j < range.end; ++j) {
        const std::int32_t weight = std::int32_t{weights[i][j]} - softmax_output_quantization.zero_point;
        const std::int8_t* row = &v.elements[j][columns.value];
#pragma GCC unroll 16
        for (std::size_t c = 0; c < DV; ++c) head_sums[c] += weight * (std::int32_t{row[c]} - V::quant.zero_point);
      }
      for (std::size_t c = 0; c < DV; ++c) sums[i][c] = head_sums[c];
    }
  }
  for (std::size_t i = 0; i < G; ++i) {
    kernels::requantize_values<multipliers::output>(sums[i], Out::quant.zero_point,
                                                    out.elements[0] + columns.output + i * DV, DV);
  }
}

/// One head of int8 attention over column windows: queries q[:, query, query + DK), keys k[:, key, key + DK),
/// values v[:, value, value + DV), written to out[:, output, output + DV). For each query, only the keys the mask
/// lets it see are scored; a query that sees no key gets real 0 (the output's zero point). With `VTransposed`, v is
/// V^T (its rows are the value columns, rows [value, value + DV) this head's), as `multi_head_attention` makes it.
template <quantization Scores, softmax_method Softmax, std::size_t DK, std::size_t DV, bool VTransposed = false,
          typename Q, typename K, typename V, typename Mask, typename Out>
constexpr void int8_attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out,
                           const int8_head_columns& columns) noexcept {
  using multipliers = int8_attention_multipliers<Q::quant, K::quant, V::quant, Scores, Out::quant, DK>;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  using softmax = softmax_kernel<Softmax, Scores>;
  constexpr const auto& table = softmax::table;
  // The head's values transposed, so that each output column is a dot product along the keys: v itself when given
  // transposed, else a copy (int8: DV x n_kv bytes of stack). `value_row` is the head's first row in them.
  // Rationale: one query (a decoding step over a cache) reads v's rows where they are (`direct_values`): copying
  // the cache's rows cost as much as the rest of a small head's attention (head_dim 8 over a 32-row cache: half of
  // the head's instructions on a M7), and each key's weight times its row of values needs no transposition.
  constexpr bool direct_values = !VTransposed && n_q == 1;
  constexpr bool copies = !VTransposed && !direct_values;
  std::int8_t copied[copies ? DV : 1][copies ? n_kv : 1];
  if constexpr (copies) {
    for (std::size_t j = 0; j < n_kv; ++j) {
      for (std::size_t c = 0; c < DV; ++c) copied[c][j] = v.elements[j][columns.value + c];
    }
  }
  const auto& values = [&]() -> const auto& {
    if constexpr (VTransposed) {
      return v.elements;
    } else {
      return copied;
    }
  }();
  const std::size_t value_row = VTransposed ? columns.value : 0;
  // Rationale: one query (a decoding step over a cache) takes the path that scores only the keys it sees, so a step
  // costs the tokens cached so far, not the cache's capacity.
  if constexpr (!int8_mask_visits_a_window<Mask>() && n_q > 1) {
    // Every pair of query and key in two products (the kernels' tiles, Helium's vmladava.s8): the scores of all
    // keys, the softmax of each query over the keys it sees, then the weights times V over all keys, where a
    // hidden key's weight -128 is w + 128 = 0 and adds nothing. A query that sees no key gets the zero point.
    // Rationale: a block of queries at a time (`int8_attention_query_rows`), not all n_q, so that the scores and
    // the weights take 2 x rows x n_kv bytes of stack rather than 2 n_q n_kv: on a Cortex-M they were the largest
    // part of an inference's RAM (KWT-Tiny's 50 tokens: 5,000 of its 11,700 bytes). Every output element is the
    // same sum, so the bits do not depend on the block.
    constexpr std::size_t rows = n_q < kernels::int8_attention_query_rows ? n_q : kernels::int8_attention_query_rows;
    std::int8_t scores[rows][n_kv];
    std::int8_t weights[rows][n_kv];
    bool visible[n_kv];
    // The two products' column starts, made once for the head: each block's products share K and V^T.
    std::int32_t key_starts[n_kv];
    std::int32_t value_starts[DV];
    kernels::int8_column_starts<DK, n_kv>(k.elements, 0, columns.key, Q::quant.zero_point, K::quant.zero_point,
                                          key_starts);
    kernels::int8_column_starts<n_kv, DV>(values, value_row, 0, softmax_output_quantization.zero_point,
                                          V::quant.zero_point, value_starts);
    const auto attend_block = [&]<std::size_t M>(std::integral_constant<std::size_t, M>, std::size_t first) {
      kernels::int8_window_product_from_starts<M, DK, n_kv>(q.elements, first, columns.query, k.elements, 0,
                                                            columns.key, K::quant.zero_point, key_starts,
                                                            multipliers::scores, Scores.zero_point, scores, 0, 0);
      // Rationale: not i and j, which GCC's -Wshadow reports inside a lambda against a user's global i or j.
      for (std::size_t row = 0; row < M; ++row) {
        const key_range range = mask.keys(first + row, n_q, n_kv);
        const bool* filter = nullptr;
        if constexpr (Mask::checks_each_key) {
          for (std::size_t key = range.begin; key < range.end; ++key) visible[key] = mask.allowed(first + row, key);
          filter = visible;
        }
        for (std::size_t key = 0; key < range.begin && key < n_kv; ++key) weights[row][key] = -128;
        for (std::size_t key = range.end > range.begin ? range.end : range.begin; key < n_kv; ++key) {
          weights[row][key] = -128;
        }
        if (range.end > range.begin) {
          kernels::int8_softmax_row<typename softmax::method>(scores[row], weights[row], range.begin, range.end,
                                                              table.data(), filter);
        }
      }
      kernels::int8_window_product_from_starts<M, n_kv, DV>(weights, 0, 0, values, value_row, 0, V::quant.zero_point,
                                                            value_starts, multipliers::output, Out::quant.zero_point,
                                                            out.elements, first, columns.output);
    };
    kernels::for_each_row_block<n_q, rows>(attend_block);
    return;
  }
  if constexpr (direct_values) {
    int8_attend_group<Scores, Softmax, DK, DV, 1>(q, k, v, mask, out, columns);
    return;
  }
  for (std::size_t i = 0; i < n_q; ++i) {
    const key_range range = mask.keys(i, n_q, n_kv);
    const std::size_t seen = range.end > range.begin ? range.end - range.begin : 0;
    // Rationale: left uninitialized (C++20 allows it in constant evaluation): each entry is written before it is
    // read, and only within the query's range of keys; zeroing them for every query cost more than the softmax.
    std::int32_t sums[n_kv > DV ? n_kv : DV];
    std::int8_t scores[n_kv];
    std::int8_t weights[1][n_kv];
    bool visible[n_kv];
    if (seen > 0) {
      kernels::int8_dot_rows<DK>(q.elements, i, columns.query, Q::quant.zero_point, k.elements, range.begin,
                                 columns.key, K::quant.zero_point, DK, seen, sums);
    }
    // Rationale: only where the query sees a key (a mask's range may begin past n_kv then, and scores + begin
    // must not be formed). GCC 12 at -O3 reports the vectorized loop of this call as writing before `scores` (it
    // does not follow that range.begin + seen <= n_kv); the warning is off for this call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
    if (seen > 0) kernels::requantize_values<multipliers::scores>(sums, Scores.zero_point, scores + range.begin, seen);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    const bool* filter = nullptr;
    if constexpr (Mask::checks_each_key) {
      for (std::size_t j = range.begin; j < range.end; ++j) visible[j] = mask.allowed(i, j);
      filter = visible;
    }
    // Rationale: GCC 12 for AArch64 reports scores as maybe uninitialized here (it does not follow that the loop
    // above wrote exactly [range.begin, range.end), the range the softmax reads); zeroing the row for every query
    // would cost O(n_kv) per query and undo the sliding window's O(r N), so the warning is off for this call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    kernels::int8_softmax_row<typename softmax::method>(scores, weights[0], range.begin, range.end, table.data(),
                                                        filter);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    // sum_j (w_j + 128)(v_j - v_zero): the weights' zero point is -128, and a hidden key's weight is -128.
    if (seen > 0) {
      kernels::int8_dot_rows<n_kv>(weights, 0, range.begin, softmax_output_quantization.zero_point, values, value_row,
                                   range.begin, V::quant.zero_point, seen, DV, sums);
    } else {
      for (std::size_t c = 0; c < DV; ++c) sums[c] = 0;
    }
    kernels::requantize_values<multipliers::output>(sums, Out::quant.zero_point, out.elements[i] + columns.output, DV);
  }
}

/// Each of `Heads` heads' int8 attention over its columns of q, k and v^T (given transposed), written to its columns
/// of the context (`multi_head_attention`).
// Rationale: always inlined, as `multi_head_attention` is: a call's frame would sit beside the activations.
template <quantization Scores, softmax_method Softmax, std::size_t Heads, typename Q, typename K, typename VT,
          typename Mask, typename Out>
CTATTN_ALWAYS_INLINE constexpr void int8_attend_heads(const Q& q, const K& k, const VT& v_t, const Mask& mask,
                                                      Out& context) noexcept {
  constexpr std::size_t key_width = Q::cols / Heads;
  constexpr std::size_t value_width = Out::cols / Heads;
  for (std::size_t h = 0; h < Heads; ++h) {
    int8_attend<Scores, Softmax, key_width, value_width, true>(
        q, k, v_t, mask, context, {h * key_width, h * key_width, h * value_width, h * value_width});
  }
}

template <typename Q, typename K, typename V, typename Mask, quantization Scores, quantization Out>
using quantized_attention_rules =
    rule_list<shape_error::inner_dimensions_must_match<op::quantized_attention, dim_of<Q::column_extent>,
                                                       dim_of<K::column_extent>>,
              shape_error::rows_must_match<op::quantized_attention, dim_of<K::row_extent>, dim_of<V::row_extent>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_attention, count<Q::cols>, count<33025>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_attention, count<K::rows>, count<33025>>,
              shape_error::int8_mask_must_hide_keys<op::quantized_attention, Mask>,
              mask_rules<op::quantized_attention, std::int8_t, Q::row_extent, K::row_extent, Mask>,
              quantization_rules<Scores>, quantization_rules<Out>>;
}  // namespace detail

/// softmax(Q K^T / sqrt(d_k)) V in int8, each query over the keys `mask` lets it see:
///   1. scores: sum_k (q - q_zero)(k - k_zero) in int32, requantized to `Scores` with the multiplier
///      q_scale k_scale / (sqrt(d_k) scores_scale);
///   2. weights: the int8 softmax of the scores over the visible keys (`softmax_rows<Softmax>`: scale 1/256, zero
///      point -128; `softmax_method::tflite` for TFLite's bits); hidden keys get weight 0;
///   3. output: sum_j (w + 128)(v - v_zero) in int32, requantized to `Out` with (1/256) v_scale / out_scale.
/// A query that sees no key gets real 0 (Out's zero point), as float attention gives 0.
///
/// | operand | shape                                      |
/// |---------|--------------------------------------------|
/// | `q`     | `qmatrix<n_q, d_k, QQ>`                    |
/// | `k`     | `qmatrix<n_kv, d_k, QK>`                   |
/// | `v`     | `qmatrix<n_kv, d_v, QV>`                   |
/// | `mask`  | a mask that hides keys (ctattn/attention/mask.hpp), by default `no_mask` |
/// | result  | `qmatrix<n_q, d_v, Out>`                   |
///
/// Rules: q and k have one width d_k (`inner_dimensions_must_match`, names included); k and v have one number of
/// rows (`rows_must_match`); the sums fit an int32; the mask hides keys (`int8_mask_must_hide_keys`) and fits the
/// scores (`mask_rows_must_match_queries`, ...); `Scores` and `Out` are quantizations. `Scores` should cover the
/// range of Q K^T / sqrt(d_k) (calibrate it like any activation): scores beyond it saturate.
///
/// Example:
/// \code
///   constexpr auto context = ctattn::scaled_dot_product_attention<q_scores, q_context>(q_q, k_q, v_q);
///   constexpr auto causal = ctattn::scaled_dot_product_attention<q_scores, q_context>(q_q, k_q, v_q, ctattn::causal);
/// \endcode
template <quantization Scores, quantization Out, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix Q,
          QuantizedMatrix K, QuantizedMatrix V, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v,
                                                          const Mask& mask = {}) noexcept
    -> basic_qmatrix<Q::row_extent, V::column_extent, Out> {
  basic_qmatrix<Q::row_extent, V::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_attention_rules<Q, K, V, Mask, Scores, Out>>::check()) {
    detail::int8_attend<Scores, Softmax, Q::cols, V::cols>(q, k, v, mask, out, {});
  }
  return out;
}

/// The weights of multi-head attention in int8: four `qlinear` projections (PyTorch's out x in layout, per-channel
/// scales), each made by `quantize_linear` from the float model's. The query, key and value projections take the
/// input's quantization; their outputs' quantizations are Q's, K's and V's; the output projection W_O takes the
/// heads' concatenated outputs in its input quantization (the context's) and gives the result's.
///
/// | member   | projection                  |
/// |----------|-----------------------------|
/// | `query`  | d_model -> d_model          |
/// | `key`    | d_model -> d_model          |
/// | `value`  | d_model -> d_model          |
/// | `output` | d_model -> d_out (W_O)      |
///
/// Rules: `Heads` divides the width of Q and of V (`heads_must_divide_model_width`), checked where the type is
/// formed; where it is used, the widths chain (`multi_head_attention`).
///
/// Example:
/// \code
///   constexpr ctattn::qmulti_head_attention_weights<4, decltype(wq), decltype(wk), decltype(wv), decltype(wo)> w{
///       wq, wk, wv, wo};
///   constexpr auto y = ctattn::multi_head_attention<q_scores>(x_q, w, ctattn::causal);
/// \endcode
namespace detail {
// The stack of 16x8 multi-head self-attention over N rows with weights W (ctattn/quantized/q16attention.hpp).
template <typename W, std::size_t N>
[[nodiscard]] constexpr std::size_t int16_attention_stack_bytes() noexcept;
}  // namespace detail

template <std::size_t Heads, typename Query, typename Key, typename Value, typename Output>
struct qmulti_head_attention_weights {
  /// The rules of the configuration; `multi_head_attention` checks them again (no second error).
  using rules = rule_list<shape_error::count_must_be_positive<op::quantized_multi_head_attention, count<Heads>>,
                          shape_error::heads_must_divide_model_width<op::quantized_multi_head_attention, count<Heads>,
                                                                     dim_of<Query::output_extent>>,
                          shape_error::heads_must_divide_model_width<op::quantized_multi_head_attention, count<Heads>,
                                                                     dim_of<Value::output_extent>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  static constexpr std::size_t heads = Heads;
  Query query;
  Key key;
  Value value;
  Output output;

  /// The memory of `multi_head_attention<Scores>(x, weights, mask)` on an X (ctattn::footprint): the four
  /// projections' objects, X and the result, and on the stack the context (n rows) beside the larger of V and V^T
  /// while V is transposed, and K, V^T and Q while the heads attend (Q in the context's bytes when the heads' query
  /// and value widths are one), with the largest scratch of the calls inside: a projection's kernel
  /// (`detail::kernels::int8_product_stack_bytes`), or a head's (the scores and the weights of a block of queries,
  /// `detail::kernels::int8_attention_query_rows` or n if fewer, over the n keys, the zero-point sums of its two
  /// products, the visible flags and the larger of its two products' kernel scratch).
  ///
  ///
  /// On an int16 X (four `q16linear`s), the stack holds the context beside Q, K and V while the heads attend, each
  /// head's operands gathered (its Q and K rows, V^T), its scores, weights and context (16x8 attention scores every
  /// pair), or a projection's kernel scratch (`detail::int16_attention_stack_bytes`).
  ///
  /// Example: `constexpr auto fp = decltype(weights)::footprint_of<decltype(x_q)>();`
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    if constexpr (Quantized16Matrix<X>) {
      return {sizeof(qmulti_head_attention_weights), sizeof(X),
              sizeof(basic_q16matrix<X::row_extent, Output::output_extent, Output::output_quantization>), 0,
              detail::int16_attention_stack_bytes<qmulti_head_attention_weights, X::rows>()};
    } else {
      return int8_footprint_of<X>();
    }
  }

  friend constexpr bool operator==(const qmulti_head_attention_weights&,
                                   const qmulti_head_attention_weights&) = default;

 private:
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint int8_footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t key_width = Query::outputs / Heads;
    constexpr std::size_t value_width = Value::outputs / Heads;
    // V's projection and V^T, then (the first gone) K, V^T and the context (Q in its bytes when the heads' query
    // and value widths are one), then the context alone beside the output projection's.
    constexpr std::size_t context_bytes = n * Value::outputs;
    constexpr std::size_t query_bytes = key_width == value_width ? 0 : n * Query::outputs;
    constexpr std::size_t transposing = 2 * n * Value::outputs;
    constexpr std::size_t attending = n * Key::outputs + n * Value::outputs + query_bytes;
    constexpr std::size_t activations = context_bytes + (transposing > attending ? transposing : attending);
    constexpr std::size_t rows =
        n < detail::kernels::int8_attention_query_rows ? n : detail::kernels::int8_attention_query_rows;
    constexpr std::size_t scores_product = detail::kernels::int8_product_stack_bytes<rows, key_width, n>;
    constexpr std::size_t context_product = detail::kernels::int8_product_stack_bytes<rows, n, value_width>;
    constexpr std::size_t head = 2 * rows * n + n + sizeof(std::int32_t) * (2 * n + n + key_width + value_width) +
                                 (scores_product > context_product ? scores_product : context_product);
    constexpr std::size_t input_projection =
        detail::kernels::int8_product_stack_bytes<n, Query::inputs, Query::outputs>;
    constexpr std::size_t output_projection =
        detail::kernels::int8_product_stack_bytes<n, Output::inputs, Output::outputs>;
    constexpr std::size_t projection = input_projection > output_projection ? input_projection : output_projection;
    return {sizeof(qmulti_head_attention_weights), sizeof(X),
            sizeof(basic_qmatrix<X::row_extent, Output::output_extent, Output::output_quantization>), 0,
            activations + (head > projection ? head : projection)};
  }
};

/// Builds `qmulti_head_attention_weights<Heads, ...>` from four `qlinear`s, their types deduced.
///
/// Example: `constexpr auto w = ctattn::make_qmulti_head_attention_weights<4>(wq, wk, wv, wo);`
template <std::size_t Heads, typename Query, typename Key, typename Value, typename Output>
[[nodiscard]] constexpr auto make_qmulti_head_attention_weights(const Query& query, const Key& key, const Value& value,
                                                                const Output& output) noexcept {
  return qmulti_head_attention_weights<Heads, Query, Key, Value, Output>{query, key, value, output};
}

namespace detail {
// The quantizations of an attention layer's four projections: the queries' input, the keys' and values' (the same
// for self-attention, the memory's for cross-attention), each projection's output, and the context the output
// projection reads.
struct attention_projection_quantizations {
  quantization query_input, key_value_input, query, key, value, context, output;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
  activation_format activations = activation_format::int8;
};
// The int8 form of a float attention layer's weights (PyTorch's out x in, biases), each projection per channel
// (`quantize_linear`), as every int8 layer with attention makes it.
template <std::size_t Heads, attention_projection_quantizations Q, typename Weights>
[[nodiscard]] constexpr auto quantize_attention_weights(const Weights& w) noexcept {
  return make_qmulti_head_attention_weights<Heads>(
      quantize_linear_as<Q.activations, Q.query_input, Q.query, Q.weights, Q.granularity>(w.query),
      quantize_linear_as<Q.activations, Q.key_value_input, Q.key, Q.weights, Q.granularity>(w.key),
      quantize_linear_as<Q.activations, Q.key_value_input, Q.value, Q.weights, Q.granularity>(w.value),
      quantize_linear_as<Q.activations, Q.context, Q.output, Q.weights, Q.granularity>(w.output));
}

// The rules of multi-head attention of x over `Memory` (x itself for self-attention).
template <typename X, typename Memory, typename W, typename Mask, quantization Scores>
using quantized_multi_head_rules =
    rule_list<typename W::rules,
              shape_error::query_and_key_widths_must_match<op::quantized_multi_head_attention,
                                                           dim_of<decltype(W::query)::output_extent>,
                                                           dim_of<decltype(W::key)::output_extent>>,
              shape_error::inner_dimensions_must_match<op::quantized_multi_head_attention,
                                                       dim_of<decltype(W::value)::output_extent>,
                                                       dim_of<decltype(W::output)::input_extent>>,
              quantized_projection_rules<X, decltype(W::query)>, quantized_projection_rules<Memory, decltype(W::key)>,
              quantized_projection_rules<Memory, decltype(W::value)>,
              shape_error::int8_mask_must_hide_keys<op::quantized_multi_head_attention, Mask>,
              mask_rules<op::quantized_multi_head_attention, std::int8_t, X::row_extent, Memory::row_extent, Mask>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_multi_head_attention, count<Memory::rows>,
                                                              count<33025>>,
              quantization_rules<Scores>>;
}  // namespace detail

/// Multi-head attention of x over a memory in int8 (cross-attention, nn.TransformerDecoderLayer's
/// `multihead_attn`): Q projected from x, K and V from the memory, each by its int8 `qlinear` (the key and value
/// projections read the memory's quantization), then each head's int8 attention and W_O as in self-attention.
///
/// | operand   | shape                                               |
/// |-----------|-----------------------------------------------------|
/// | `x`       | `qmatrix<n, d_model, QX>`                           |
/// | `memory`  | `qmatrix<m, d_model, QM>`                           |
/// | `weights` | `qmulti_head_attention_weights<Heads, ...>`: W_Q reads QX, W_K and W_V read QM |
/// | `mask`    | a mask that hides keys, n x m, by default `no_mask` |
/// | result    | `qmatrix<n, d_out, W_O's output quantization>`      |
///
/// Rules: as self-attention's, with the key and value projections on the memory and the mask fitting n x m.
///
/// Example: `constexpr auto y = ctattn::multi_head_attention<q_scores>(x_q, memory_q, cross_weights_q);`
// Rationale: always inlined into its caller (a layer's forward, called once per layer), whose frame then shares
// bytes between the attention's Q, K, V^T and context and the feed-forward block's activations, which are never
// live together. Called (as Clang 14 did), its frame sat on top of the layer's: KWT-Tiny's int8 inference took
// 11.8 KB of stack on the Cortex-M55 rather than 8.6 KB.
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X,
          QuantizedMatrix Memory, std::size_t Heads, typename Query, typename Key, typename Value, typename Output,
          AttentionMask Mask = no_mask_type>
  requires(!detail::is_q16linear<Query>)
[[nodiscard]] CTATTN_ALWAYS_INLINE constexpr auto multi_head_attention(
    const X& x, const Memory& memory, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept
    -> basic_qmatrix<X::row_extent, Output::output_extent, Output::output_quantization> {
  using W = qmulti_head_attention_weights<Heads, Query, Key, Value, Output>;
  if constexpr (!detail::first_broken<detail::quantized_multi_head_rules<X, Memory, W, Mask, Scores>>::check()) {
    return {};
  } else {
    constexpr std::size_t key_width = Query::outputs / Heads;
    constexpr std::size_t value_width = Value::outputs / Heads;
    basic_qmatrix<X::row_extent, Value::output_extent, Output::input_quantization> context;
    {
      // Rationale: V transposed once for every head, from the projection's temporary, so that the stack holds V^T
      // alone rather than V and each head's transposed copy; made first, so that the temporary's bytes are free
      // again before K and Q are made. K and V^T live in this block alone: the output projection below has only
      // the context beside it.
      const auto v_t = detail::transposed_values(project(memory, weights.value));
      const auto k = project(memory, weights.key);
      if constexpr (key_width == value_width) {
        // Rationale: Q is written into the context's bytes and read there through a view in Q's quantization:
        // each head's output for a block of queries overwrites exactly the queries' columns of that head it has
        // just scored (the same rows, the same columns, as key_width == value_width), which nothing reads again.
        // One n x d_model activation less (KWT-Tiny's 800 bytes on a Cortex-M: its RAM went below its CMSIS-NN
        // composition's on every core).
        detail::fully_connected_rows(x.elements, weights.query, context.elements);
        detail::int8_attend_heads<Scores, Softmax, Heads>(
            detail::qmatrix_view<X::rows, Query::outputs, Query::output_quantization>{context.elements}, k, v_t, mask,
            context);
      } else {
        detail::int8_attend_heads<Scores, Softmax, Heads>(project(x, weights.query), k, v_t, mask, context);
      }
    }
    return project(context, weights.output);
  }
}

/// Multi-head self-attention in int8 (the narrow form of the reference text, PyTorch's nn.MultiheadAttention):
/// Q, K and V projected from x by the int8 `qlinear`s, split into `Heads` heads of d_model / Heads columns, each
/// head's int8 attention (as `scaled_dot_product_attention`, its scores in `Scores`, its output in W_O's input
/// quantization) written into its columns of the context, then the context projected by W_O.
///
/// | operand   | shape                                               |
/// |-----------|-----------------------------------------------------|
/// | `x`       | `qmatrix<n, d_model, QX>`                           |
/// | `weights` | `qmulti_head_attention_weights<Heads, ...>`         |
/// | `mask`    | a mask that hides keys, by default `no_mask`        |
/// | result    | `qmatrix<n, d_out, W_O's output quantization>`      |
///
/// Rules: `Heads` divides the width of Q, K and V (`heads_must_divide_model_width`); Q and K have one width; V's
/// width is W_O's input; x has the projections' input width and quantization; the mask hides keys and fits n x n.
///
/// Example: `constexpr auto y = ctattn::multi_head_attention<q_scores>(x_q, weights_q, ctattn::causal);`
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X, std::size_t Heads,
          typename Query, typename Key, typename Value, typename Output, AttentionMask Mask = no_mask_type>
  requires(!detail::is_q16linear<Query>)
[[nodiscard]] CTATTN_ALWAYS_INLINE constexpr auto multi_head_attention(
    const X& x, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept
    -> basic_qmatrix<X::row_extent, Output::output_extent, Output::output_quantization> {
  // Rationale: self-attention is attention over x itself; one definition computes both.
  return multi_head_attention<Scores, Softmax>(x, x, weights, mask);
}

/// nn.MultiheadAttention as self-attention in int8: the int8 form of `multi_head_attention_layer` that
/// `ctattn::quantize` makes, `multi_head_attention<Scores>(x, weights, mask)` with the layer protocol's verbs.
///
/// | operand / member | shape / meaning                                                    |
/// |------------------|--------------------------------------------------------------------|
/// | `forward(x)`     | `qmatrix<n, d, Q(x)>` -> `qmatrix<n, d_out, W_O's output quantization>` |
/// | `weights`        | `qmulti_head_attention_weights<Heads, ...>`, W_Q, W_K, W_V reading Q(x) |
/// | `Mask`           | the float layer's mask type (none, or `ctattn::causal_mask`)        |
/// | `Softmax`        | the softmax's `softmax_method` (`rounded` unless `quantize` was told otherwise) |
///
/// Example: `const auto y = ctattn::qmulti_head_attention_layer<q_scores, decltype(w)>{w}.forward(x_q);`
template <quantization Scores, typename Weights, typename Mask = no_mask_type,
          softmax_method Softmax = softmax_method::rounded>
struct qmulti_head_attention_layer {
  using query_type = decltype(Weights::query);
  using output_type = decltype(Weights::output);
  static constexpr auto input_extent = query_type::input_extent;
  static constexpr auto output_extent = output_type::output_extent;
  static constexpr quantization input_quantization = query_type::input_quantization;
  static constexpr quantization output_quantization = output_type::output_quantization;
  static constexpr softmax_method softmax = Softmax;
  /// Whether it is the 16x8 form (`q16linear` projections, TFLite's int16 softmax).
  static constexpr bool int16 = query_type::int16;

  Weights weights{};
  [[no_unique_address]] Mask mask{};

  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return multi_head_attention<Scores, Softmax>(x, weights, mask);
  }

  /// The memory of `forward(x)` on an X (ctattn::footprint): the weights' (`qmulti_head_attention_weights::
  /// footprint_of`).
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    footprint f = Weights::template footprint_of<X>();
    f.weight_bytes = sizeof(qmulti_head_attention_layer);
    return f;
  }

  friend constexpr bool operator==(const qmulti_head_attention_layer&, const qmulti_head_attention_layer&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ATTENTION_HPP
