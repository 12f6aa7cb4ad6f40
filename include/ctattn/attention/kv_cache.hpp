// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_KV_CACHE_HPP
#define CTATTN_ATTENTION_KV_CACHE_HPP

/// \file
/// Autoregressive decoding: a key/value cache of static capacity, and attention of one new token over it.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `kv_cache<T, Capacity, KWidth, VWidth>`  | the keys and values of the tokens so far, and how many        |
/// | `attend_cached(q, cache, options...)`    | one query over the cache's keys (single head)                 |
/// | `multi_head_attention_step(x, w, cache, out)` | one token of multi-head self-attention, cached  |
/// | `cache_memory(memory, w, cache)`         | an encoder's output projected once into a cache, for cross-attention |
/// | `multi_head_attention_cached(x, w, c, out)` | one token of multi-head attention over a cache, no append |
///
/// Decoding token by token gives what causal attention over the whole sequence gives, row by row (the same bits
/// with exact arithmetic: the same sums in the same order). Positional information that attention sees (RoPE,
/// ALiBi) is the caller's, as in full attention: rotate a token's query and key at its position before they meet
/// the cache, and pass ALiBi's bias row for the query's position as a mask.
///
/// A full cache is an error, never undefined behaviour: at a constant position (`append<P>`) a compile error; at
/// run time `append` and the step functions return false and change nothing.

#include <cstddef>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/multi_head.hpp"
#include "ctattn/attention/options.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
#include "ctattn/detail/cache_rows.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// The keys and values of the first `length` tokens of a sequence, in rows 0 to length - 1, for at most
/// `Capacity` tokens: the memory of autoregressive decoding, sized at compile time (no allocation).
///
/// | member    | shape / meaning                                   |
/// |-----------|---------------------------------------------------|
/// | `keys`    | Capacity x KeyWidth (rows past `length` unused)   |
/// | `values`  | Capacity x ValueWidth                             |
/// | `length`  | tokens held, 0 to Capacity                        |
///
/// Example:
/// \code
///   ctattn::kv_cache<float, 16, 32> cache{};              // 16 tokens of d_model 32
///   cache.append<0>(k_row, v_row);                         // a constant position past 15 does not compile
///   if (!cache.append(k_row, v_row)) { /* full: nothing changed */ }
/// \endcode
template <typename T, std::size_t Capacity, auto KeyWidth, auto ValueWidth = KeyWidth>
struct kv_cache : detail::cache_rows<basic_matrix<T, Capacity, normalize_extent<KeyWidth>>,
                                     basic_matrix<T, Capacity, normalize_extent<ValueWidth>>,
                                     basic_matrix<T, std::size_t{1}, normalize_extent<KeyWidth>>,
                                     basic_matrix<T, std::size_t{1}, normalize_extent<ValueWidth>>> {
  using value_type = T;
  static constexpr std::size_t capacity = Capacity;
  static constexpr auto key_extent = normalize_extent<KeyWidth>;
  static constexpr auto value_extent = normalize_extent<ValueWidth>;
  using key_row = basic_matrix<T, std::size_t{1}, key_extent>;
  using value_row = basic_matrix<T, std::size_t{1}, value_extent>;

  // `keys`, `values`, `length`, `full()`, `append(key, value)` and `clear()`: detail/cache_rows.hpp.
  using kv_cache::cache_rows::append;

  /// Appends at the constant position `Position`: a position at or past the capacity is a compile error (rule
  /// `position_must_fit_cache`); the position must be `length` (a precondition, checked with
  /// CTATTN_CHECK_PRECONDITIONS).
  template <std::size_t Position>
  constexpr void append(const key_row& key, const value_row& value) noexcept {
    if constexpr (shape_error::position_must_fit_cache<op::kv_cache, count<Position>, count<Capacity>>::check()) {
      detail::expects(Position == this->length);
      (void)append(key, value);
    }
  }

  friend constexpr bool operator==(const kv_cache&, const kv_cache&) = default;
};

namespace detail {
template <typename C>
inline constexpr bool is_kv_cache = false;
template <typename T, std::size_t Capacity, auto K, auto V>
inline constexpr bool is_kv_cache<kv_cache<T, Capacity, K, V>> = true;

// The mask of a step: the cache's tokens, and whatever mask the call adds (ALiBi's bias row, say).
template <typename Cache, typename... Options>
constexpr auto step_mask(const Cache& cache, const Options&... options) noexcept {
  return combine_masks(key_padding_length{cache.length}, mask_of(options...));
}

template <typename... Options>
constexpr auto arithmetic_option_of() noexcept {
  return arithmetic_option<call_options<Options...>::arithmetic_kind>{};
}
}  // namespace detail

/// A key/value cache (any `kv_cache`).
template <typename C>
concept KeyValueCache = detail::is_kv_cache<std::remove_cvref_t<C>>;

/// Attention of queries over the tokens in a cache: softmax(q K^T / sqrt(d_k) + mask) V over its first `length`
/// keys and values, as `scaled_dot_product_attention` computes it. Options: a mask added to the cache's own (an
/// ALiBi bias row for the query's position), an arithmetic.
///
/// | operand | shape                                |
/// |---------|--------------------------------------|
/// | `q`     | n_q x KeyWidth (usually one query)   |
/// | `cache` | `kv_cache<T, Capacity, KeyWidth, ValueWidth>` |
/// | result  | n_q x ValueWidth                     |
///
/// Example:
/// \code
///   (void)cache.append(k_t, v_t);
///   const auto out_t = ctattn::attend_cached(q_t, cache);   // row t of causal attention
/// \endcode
template <FixedMatrix Q, KeyValueCache Cache, typename... Options>
[[nodiscard]] constexpr auto attend_cached(const Q& q, const Cache& cache, const Options&... options) noexcept {
  return scaled_dot_product_attention(q, cache.keys, cache.values, detail::step_mask(cache, options...),
                                      detail::arithmetic_option_of<Options...>());
}

namespace detail {
// The rules of one query row x over a cache with weights W, writing into Out.
template <typename X, typename W, typename Cache, typename Out>
using cached_attention_rules = rule_list<
    shape_error::must_be_a_single_row<op::kv_cache, dim_of<X::row_extent>>, projection_rules<X, query_projection<W>>,
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>, dim_of<key_projection<W>::output_extent>>,
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>,
                                    dim_of<value_projection<W>::output_extent>>,
    shape_error::element_types_must_match<op::kv_cache, typename Cache::value_type, typename W::value_type>,
    projection_into_rules<Out, basic_matrix<typename W::value_type, std::size_t{1}, output_projection<W>::input_extent>,
                          output_projection<W>>>;

// Query row q over every token of the cache, each head over its columns, then W_O into out.
template <arithmetic A, typename W, typename Q, typename Cache, typename Out, typename... Options>
constexpr void attend_cached_heads(const Q& q, const W& w, const Cache& cache, Out& out,
                                   const Options&... options) noexcept {
  basic_matrix<typename W::value_type, std::size_t{1}, output_projection<W>::input_extent> concat{};
  basic_matrix<typename W::value_type, std::size_t{1}, Cache::capacity>* none = nullptr;
  attend_heads<A, false, W>(q, cache.keys, cache.values, step_mask(cache, options...), concat, none);
  project_rows<A>(out, concat, w.output);
}
}  // namespace detail

/// One token of multi-head self-attention in decoding: projects the token `x` (1 x d_model) into its query, key
/// and value, appends the key and value to `cache`, attends the query over every cached token (each head over its
/// columns; grouped-query heads share theirs), and writes the output projection into `out` (1 x d_model). Returns
/// false, changing nothing, when the cache is full.
///
/// | operand  | shape                                                            |
/// |----------|------------------------------------------------------------------|
/// | `x`      | 1 x d_model                                                      |
/// | `w`      | multi-head or grouped-query weights                              |
/// | `cache`  | `kv_cache<T, Capacity, key width, value width>` (d_model and d_model for narrow heads) |
/// | `out`    | 1 x d_model                                                      |
///
/// Token t's output is row t of `multi_head_attention(X, X, X, w, ctattn::causal)`.
///
/// Example:
/// \code
///   ctattn::kv_cache<float, 16, 32> cache{};
///   ctattn::matrix<float, 1, 32> y{};
///   for (const auto& x_t : tokens) if (!ctattn::multi_head_attention_step(x_t, w, cache, y)) break;
/// \endcode
template <FixedMatrix X, typename W, KeyValueCache Cache, FixedMatrix Out, typename... Options>
[[nodiscard]] constexpr bool multi_head_attention_step(const X& x, const W& w, Cache& cache, Out& out,
                                                       const Options&... options) noexcept {
  if constexpr (detail::first_broken<detail::cached_attention_rules<X, W, Cache, Out>>::check()) {
    constexpr arithmetic a = detail::call_options<Options...>::arithmetic_kind;
    if (cache.full()) return false;
    const auto q = detail::projected<a>(x, w.query);
    (void)cache.append(detail::projected<a>(x, w.key), detail::projected<a>(x, w.value));
    detail::attend_cached_heads<a>(q, w, cache, out, options...);
  }
  return true;
}

/// Projects an encoder's output once into a cache, for the cross-attention of decoding: row i of `memory` gives
/// the cache's key and value i (through W's W_K and W_V, as `multi_head_attention(q, memory, memory, w)`
/// projects them); the cache then holds exactly the memory's rows. A memory with more rows than the cache's
/// capacity is a compile error (rule `memory_must_fit_cache`).
///
/// | operand  | shape                                      |
/// |----------|--------------------------------------------|
/// | `memory` | m x d_model (m <= Capacity)                |
/// | `w`      | the cross-attention's multi-head weights   |
/// | `cache`  | `kv_cache<T, Capacity, key width, value width>` |
///
/// Example:
/// \code
///   ctattn::kv_cache<float, 8, 32> source{};
///   ctattn::cache_memory(encoder_output, cross_weights, source);   // once per source sequence
/// \endcode
template <FixedMatrix Memory, typename W, KeyValueCache Cache, typename... Options>
constexpr void cache_memory(const Memory& memory, const W& w, Cache& cache, const Options&...) noexcept {
  using rules = rule_list<
      shape_error::memory_must_fit_cache<op::kv_cache, count<Memory::rows>, count<Cache::capacity>>,
      detail::projection_rules<Memory, detail::key_projection<W>>,
      detail::projection_rules<Memory, detail::value_projection<W>>,
      shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>,
                                      dim_of<detail::key_projection<W>::output_extent>>,
      shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>,
                                      dim_of<detail::value_projection<W>::output_extent>>,
      shape_error::element_types_must_match<op::kv_cache, typename Cache::value_type, typename W::value_type>>;
  if constexpr (detail::first_broken<rules>::check()) {
    constexpr arithmetic a = detail::call_options<Options...>::arithmetic_kind;
    const auto keys = detail::projected<a>(memory, w.key);
    const auto values = detail::projected<a>(memory, w.value);
    cache = Cache{};
    for (std::size_t i = 0; i < Memory::rows; ++i) {
      for (std::size_t j = 0; j < Cache::key_row::cols; ++j) cache.keys.elements[i][j] = keys.elements[i][j];
      for (std::size_t j = 0; j < Cache::value_row::cols; ++j) cache.values.elements[i][j] = values.elements[i][j];
    }
    cache.length = Memory::rows;
  }
}

/// One token of multi-head attention over the tokens a cache holds, appending nothing: the cross-attention of a
/// decoding step over the memory `cache_memory` projected. Projects `x` into its query, attends every head over
/// the cached keys and values, writes the output projection into `out`. Options: a mask added to the cache's own,
/// an arithmetic.
///
/// | operand  | shape                                   |
/// |----------|-----------------------------------------|
/// | `x`      | 1 x d_model                             |
/// | `w`      | multi-head weights                      |
/// | `cache`  | `kv_cache` holding the memory's keys and values |
/// | `out`    | 1 x d_model                             |
///
/// Token t's output is row t of `multi_head_attention(X, memory, memory, w)`.
///
/// Example: `ctattn::multi_head_attention_cached(x_t, cross_weights, source, y_t);`
template <FixedMatrix X, typename W, KeyValueCache Cache, FixedMatrix Out, typename... Options>
constexpr void multi_head_attention_cached(const X& x, const W& w, const Cache& cache, Out& out,
                                           const Options&... options) noexcept {
  if constexpr (detail::first_broken<detail::cached_attention_rules<X, W, Cache, Out>>::check()) {
    constexpr arithmetic a = detail::call_options<Options...>::arithmetic_kind;
    detail::attend_cached_heads<a>(detail::projected<a>(x, w.query), w, cache, out, options...);
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_KV_CACHE_HPP
