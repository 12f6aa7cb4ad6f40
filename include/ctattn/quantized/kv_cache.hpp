// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_KV_CACHE_HPP
#define CTATTN_QUANTIZED_KV_CACHE_HPP

/// \file
/// Autoregressive decoding in int8: a key/value cache of int8 rows in the keys' and values' quantizations, and
/// multi-head attention of one new token over it. Integer arithmetic throughout, so a token's output is the same
/// bits as its row of int8 attention over the whole sequence (`multi_head_attention<Scores>(x, weights, causal)`).
///
/// | entity                                              | what                                                   |
/// |-----------------------------------------------------|--------------------------------------------------------|
/// | `qkv_cache<Capacity, KeyWidth, ValueWidth, QK, QV>` | the int8 keys and values of the tokens so far, and how many |
/// | `multi_head_attention_step<Scores>(x, w, cache, out)` | one token of int8 multi-head self-attention, its key and value appended |
/// | `cache_memory(memory, w, cache)`                    | a memory projected once into a cache, for cross-attention |
/// | `multi_head_attention_cached<Scores>(x, w, cache, out)` | one token of int8 multi-head attention over a cache, no append |
///
/// The int8 encoder and decoder layers (ctattn/quantized/transformer.hpp) decode with these: `step`, `prepare`.
///
/// Example:
/// \code
///   ctattn::qkv_cache<16, 32, 32, q_key, q_value> cache{};
///   ctattn::qmatrix<1, 32, q_out> y{};
///   for (const auto& x_t : tokens_q) if (!ctattn::multi_head_attention_step<q_scores>(x_t, w, cache, y)) break;
/// \endcode

#include <cstddef>
#include <cstdint>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/detail/cache_rows.hpp"
#include "ctattn/quantized/attention.hpp"
#include "ctattn/quantized/qmatrix.hpp"

namespace ctattn {

/// The int8 keys and values of the first `length` tokens of a sequence, in rows 0 to length - 1, for at most
/// `Capacity` tokens, the keys in quantization QK and the values in QV (the key and value projections' outputs).
///
/// | member    | shape / meaning                                       |
/// |-----------|-------------------------------------------------------|
/// | `keys`    | `qmatrix<Capacity, KeyWidth, QK>` (rows past `length` unused) |
/// | `values`  | `qmatrix<Capacity, ValueWidth, QV>`                   |
/// | `length`  | tokens held, 0 to Capacity                            |
///
/// Example: `typename decltype(layer_q)::template cache<16> cache{};   // the layer's own cache type`
template <std::size_t Capacity, auto KeyWidth, auto ValueWidth, quantization QK, quantization QV>
struct qkv_cache : detail::cache_rows<basic_qmatrix<Capacity, normalize_extent<KeyWidth>, QK>,
                                      basic_qmatrix<Capacity, normalize_extent<ValueWidth>, QV>,
                                      basic_qmatrix<std::size_t{1}, normalize_extent<KeyWidth>, QK>,
                                      basic_qmatrix<std::size_t{1}, normalize_extent<ValueWidth>, QV>> {
  static constexpr std::size_t capacity = Capacity;
  static constexpr quantization key_quantization = QK;
  static constexpr quantization value_quantization = QV;
  static constexpr auto key_extent = normalize_extent<KeyWidth>;
  static constexpr auto value_extent = normalize_extent<ValueWidth>;
  using key_row = basic_qmatrix<std::size_t{1}, key_extent, QK>;
  using value_row = basic_qmatrix<std::size_t{1}, value_extent, QV>;
  // `keys`, `values`, `length`, `full()`, `append(key, value)` and `clear()`: detail/cache_rows.hpp.

  friend constexpr bool operator==(const qkv_cache&, const qkv_cache&) = default;
};

namespace detail {
template <typename C>
inline constexpr bool is_qkv_cache = false;
template <std::size_t Capacity, auto K, auto V, quantization QK, quantization QV>
inline constexpr bool is_qkv_cache<qkv_cache<Capacity, K, V, QK, QV>> = true;

// The cache of the keys and values that multi-head weights W project, for Capacity tokens.
template <typename W, std::size_t Capacity>
using qkv_cache_for = qkv_cache<Capacity, decltype(W::key)::output_extent, decltype(W::value)::output_extent,
                                decltype(W::key)::output_quantization, decltype(W::value)::output_quantization>;

// Every head of one query row q over the cache's first `length` tokens (and `mask`, when it hides more), then the
// output projection: query head h reads the keys and values of head h / (Heads / KeyValueHeads), as grouped-query
// attention shares them (KeyValueHeads = Heads: one each, multi-head attention).
template <quantization Scores, softmax_method Softmax, std::size_t Heads, std::size_t KeyValueHeads, typename Q,
          typename Output, typename Cache, typename Mask>
[[nodiscard]] constexpr auto attend_cached_heads(const Q& q, const Output& output, const Cache& cache,
                                                 const Mask& mask) noexcept {
  constexpr std::size_t key_width = Q::cols / Heads;
  constexpr std::size_t value_width = Cache::value_row::cols / KeyValueHeads;
  constexpr std::size_t group = Heads / KeyValueHeads;
  basic_qmatrix<std::size_t{1}, Output::input_extent, Output::input_quantization> context;
  const auto visible = combine_masks(key_padding_length{cache.length}, mask);
  // `together` query heads of a key/value head at once (`int8_attend_group`: each cached row read once for them),
  // all `group` of them where the backend has the form for it (kernels::int8_heads_together), else one.
  constexpr std::size_t together = kernels::int8_heads_together<value_width, group>;
  for (std::size_t h = 0; h < Heads; h += together) {
    const std::size_t g = h / group;
    int8_attend_group<Scores, Softmax, key_width, value_width, together>(
        q, cache.keys, cache.values, visible, context,
        {h * key_width, g * key_width, g * value_width, h * value_width});
  }
  return project(context, output);
}

// One decoding step over a cache, written once: the row's query and key projected, `before_append(q, k, position)`
// on them (nothing for multi-head attention; the rotary rotation of llama attention, ctattn/quantized/llama.hpp),
// the key and value appended at `position` (the tokens cached before), every head attended over the cache and the
// output projection written into `out`. False, with nothing changed, when the cache is full. The rules are the
// caller's.
template <quantization Scores, softmax_method Softmax, std::size_t Heads, std::size_t KeyValueHeads, typename X,
          typename Query, typename Key, typename Value, typename Output, typename Cache, typename Out, typename Mask,
          typename BeforeAppend>
[[nodiscard]] constexpr bool cached_attention_step(const X& x, const Query& query, const Key& key, const Value& value,
                                                   const Output& output, Cache& cache, Out& out, const Mask& mask,
                                                   const BeforeAppend& before_append) noexcept {
  if (cache.full()) return false;
  auto q = project(x, query);
  auto k = project(x, key);
  before_append(q, k, cache.length);
  (void)cache.append(k, project(x, value));
  out = attend_cached_heads<Scores, Softmax, Heads, KeyValueHeads>(q, output, cache, mask);
  return true;
}

// The hook of a step that changes nothing between projecting and appending.
struct no_change_before_append {
  template <typename Q, typename K>
  constexpr void operator()(Q&, K&, std::size_t) const noexcept {}
};

template <typename W, typename Cache>
using cache_rules = rule_list<
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>, dim_of<decltype(W::key)::output_extent>>,
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>,
                                    dim_of<decltype(W::value)::output_extent>>,
    shape_error::int8_cache_must_hold_the_projections_quantization<
        op::kv_cache, quantization_constant<Cache::key_quantization>,
        quantization_constant<decltype(W::key)::output_quantization>>,
    shape_error::int8_cache_must_hold_the_projections_quantization<
        op::kv_cache, quantization_constant<Cache::value_quantization>,
        quantization_constant<decltype(W::value)::output_quantization>>>;

template <typename X, typename W, typename Cache>
using quantized_cached_attention_rules =
    rule_list<typename W::rules, shape_error::must_be_a_single_row<op::kv_cache, dim_of<X::row_extent>>,
              quantized_projection_rules<X, decltype(W::query)>, cache_rules<W, Cache>>;
}  // namespace detail

/// One token of int8 multi-head self-attention with a cache: projects the row `x` into its query, key and value,
/// appends the key and value to `cache`, attends every head over the cached tokens (its own included) and writes W_O
/// of the heads into `out`. False, with nothing changed, when the cache is full.
///
/// | operand  | shape                                                          |
/// |----------|----------------------------------------------------------------|
/// | `x`      | `qmatrix<1, d_model, Q(x)>` (W_Q's input quantization)         |
/// | `w`      | `qmulti_head_attention_weights<Heads, ...>`                     |
/// | `cache`  | `qkv_cache<Capacity, d_k, d_v, W_K's output, W_V's output>`     |
/// | `out`    | `qmatrix<1, d_out, W_O's output quantization>`                 |
/// | `mask`   | a mask that hides more keys (by default none)                   |
///
/// Token t's output is row t of `multi_head_attention<Scores, Softmax>(X, w, ctattn::causal)`, bit for bit.
///
/// Example: `if (!ctattn::multi_head_attention_step<q_scores>(x_t, w, cache, y_t)) { /* full */ }`
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X, typename W,
          typename Cache, QuantizedMatrix Out, AttentionMask Mask = no_mask_type>
  requires detail::is_qkv_cache<Cache>
[[nodiscard]] constexpr bool multi_head_attention_step(const X& x, const W& w, Cache& cache, Out& out,
                                                       const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::quantized_cached_attention_rules<X, W, Cache>>::check()) {
    return detail::cached_attention_step<Scores, Softmax, W::heads, W::heads>(
        x, w.query, w.key, w.value, w.output, cache, out, mask, detail::no_change_before_append{});
  }
  return true;
}

/// Projects a memory (the encoder's output, in int8) once into a cache, for the cross-attention of decoding: row i
/// of `memory` gives the cache's key and value i through W_K and W_V; the cache then holds exactly the memory's
/// rows. A memory with more rows than the cache's capacity is a compile error (rule `memory_must_fit_cache`).
///
/// | operand  | shape                                                  |
/// |----------|--------------------------------------------------------|
/// | `memory` | `qmatrix<m, d_model, W_K's input quantization>`, m <= Capacity |
/// | `w`      | the cross-attention's `qmulti_head_attention_weights`  |
/// | `cache`  | `qkv_cache<Capacity, ...>` in W_K's and W_V's output quantizations |
///
/// Example: `ctattn::cache_memory(memory_q, cross_weights_q, source);   // once per source sequence`
template <QuantizedMatrix Memory, typename W, typename Cache>
  requires detail::is_qkv_cache<Cache>
constexpr void cache_memory(const Memory& memory, const W& w, Cache& cache) noexcept {
  using rules =
      rule_list<shape_error::memory_must_fit_cache<op::kv_cache, count<Memory::rows>, count<Cache::capacity>>,
                detail::quantized_projection_rules<Memory, decltype(W::key)>,
                detail::quantized_projection_rules<Memory, decltype(W::value)>, detail::cache_rules<W, Cache>>;
  if constexpr (detail::first_broken<rules>::check()) {
    const auto keys = project(memory, w.key);
    const auto values = project(memory, w.value);
    cache = Cache{};
    for (std::size_t i = 0; i < Memory::rows; ++i) {
      for (std::size_t j = 0; j < Cache::key_row::cols; ++j) cache.keys.elements[i][j] = keys.elements[i][j];
      for (std::size_t j = 0; j < Cache::value_row::cols; ++j) cache.values.elements[i][j] = values.elements[i][j];
    }
    cache.length = Memory::rows;
  }
}

/// One token of int8 multi-head attention over the tokens a cache holds, appending nothing: the cross-attention of
/// a decoding step over the memory `cache_memory` projected.
///
/// | operand  | shape                                                 |
/// |----------|-------------------------------------------------------|
/// | `x`      | `qmatrix<1, d_model, W_Q's input quantization>`       |
/// | `cache`  | the `qkv_cache` `cache_memory` filled                 |
/// | `out`    | `qmatrix<1, d_out, W_O's output quantization>`        |
/// | `mask`   | a mask over the memory's keys (by default none)       |
///
/// Token t's output is row t of `multi_head_attention<Scores, Softmax>(X, memory, w)`, bit for bit.
///
/// Example: `ctattn::multi_head_attention_cached<q_cross_scores>(x_t, cross_weights_q, source, y_t);`
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X, typename W,
          typename Cache, QuantizedMatrix Out, AttentionMask Mask = no_mask_type>
  requires detail::is_qkv_cache<Cache>
constexpr void multi_head_attention_cached(const X& x, const W& w, const Cache& cache, Out& out,
                                           const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::quantized_cached_attention_rules<X, W, Cache>>::check()) {
    out = detail::attend_cached_heads<Scores, Softmax, W::heads, W::heads>(project(x, w.query), w.output, cache, mask);
  }
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_KV_CACHE_HPP
