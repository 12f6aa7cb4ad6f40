// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_MULTI_HEAD_HPP
#define CTATTN_ATTENTION_MULTI_HEAD_HPP

/// \file
/// Multi-head attention in the reference text's two forms and PyTorch's:
///   - narrow (`multi_head_attention`): d_model is projected once and split into h heads of d_model / h
///     columns; the heads' outputs are concatenated and projected by W_O. With biases and kdim / vdim this is
///     PyTorch's nn.MultiheadAttention (see `from_torch_multihead`).
///   - grouped-query (`grouped_query_attention`): h_q query heads share h_kv key/value heads (multi-query when
///     h_kv = 1).
///   - wide (`wide_multi_head_attention`): each head projects the full input with its own W_Q, W_K, W_V.

#include <array>
#include <cstddef>
#include <type_traits>

#include "ctattn/attention/attention_head.hpp"
#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
#include "ctattn/attention/workspace.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// The output of multi-head attention with the attention weights of every head and their mean (PyTorch's
/// `average_attn_weights=True`).
///
/// | member            | shape                     |
/// |-------------------|---------------------------|
/// | `output`          | n_q x d_out               |
/// | `head_weights[h]` | n_q x n_kv, one per head  |
/// | `mean_weights`    | n_q x n_kv                |
/// | `heads_concat`    | n_q x (h * d_head): the heads' outputs side by side, the input of W_O |
template <typename Output, typename Weights, std::size_t Heads, typename Concat = Output>
struct multi_head_result {
  Output output;
  std::array<Weights, Heads> head_weights;
  Weights mean_weights;
  Concat heads_concat;  // the heads' outputs side by side, before W_O
};

namespace detail {
// What a multi-head call that returns its output alone holds while it runs: the output and, for narrow heads, the
// heads' concatenation (W_O's input), not the h + 1 n_q x n_kv weight matrices of `multi_head_result`.
// Rationale: those matrices, zeroed and never read, sat in the call's frame: 20,000 bytes of a KWT-Tiny layer's
// 36,448 on the Cortex-M4F, beyond what `multi_head_attention_footprint` counts.
template <typename Output>
struct head_output {
  Output output;
};
template <typename Output, typename Concat>
struct head_output_and_concat {
  Output output;
  Concat heads_concat;
};
}  // namespace detail

/// The weights of grouped-query attention: h_q query heads and h_kv key/value heads of `HeadDim` columns each,
/// and W_O. `multi_head_attention_weights` is the case h_kv = h_q.
///
/// | member   | projection                       |
/// |----------|----------------------------------|
/// | `query`  | DModel -> h_q * HeadDim          |
/// | `key`    | KDim -> h_kv * HeadDim           |
/// | `value`  | VDim -> h_kv * HeadDim           |
/// | `output` | h_q * HeadDim -> DModel          |
///
/// Rule: h_kv divides h_q (each key/value head serves h_q / h_kv query heads: query head h uses key/value head
/// h / (h_q / h_kv)).
///
/// Example:
/// \code
///   ctattn::grouped_query_attention_weights<float, 4, 2, d_model{16}, 4, ctattn::out_by_in> w{};
///   auto y = ctattn::grouped_query_attention(x, x, x, w, ctattn::causal);
/// \endcode
template <typename T, std::size_t QueryHeads, std::size_t KeyValueHeads, auto DModel, std::size_t HeadDim,
          WeightLayout Layout = in_by_out, bool HasBias = false, auto KDim = DModel, auto VDim = DModel>
struct basic_grouped_query_attention_weights {
  /// The rules of the configuration; the attention functions check them again (no second error).
  using rules =
      rule_list<shape_error::count_must_be_positive<op::grouped_query_attention, count<QueryHeads>>,
                shape_error::count_must_be_positive<op::grouped_query_attention, count<KeyValueHeads>>,
                shape_error::count_must_be_positive<op::grouped_query_attention, count<HeadDim>>,
                shape_error::key_value_heads_must_divide_query_heads<op::grouped_query_attention, count<KeyValueHeads>,
                                                                     count<QueryHeads>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  using value_type = T;
  static constexpr std::size_t query_heads = QueryHeads;
  static constexpr std::size_t key_value_heads = KeyValueHeads;
  static constexpr std::size_t head_dim = HeadDim;

  // Rationale: with a broken rule the widths fall back to 1, so that the members stay valid types and the rule's
  // sentence is the only error.
  static constexpr std::size_t query_width = rules_hold<rules> ? QueryHeads * HeadDim : 1;
  static constexpr std::size_t key_value_width = rules_hold<rules> ? KeyValueHeads * HeadDim : 1;

  linear<T, DModel, query_width, Layout, HasBias> query;
  linear<T, KDim, key_value_width, Layout, HasBias> key;
  linear<T, VDim, key_value_width, Layout, HasBias> value;
  linear<T, query_width, DModel, Layout, HasBias> output;

  friend constexpr bool operator==(const basic_grouped_query_attention_weights&,
                                   const basic_grouped_query_attention_weights&) = default;
};

/// `grouped_query_attention_weights<...>`: extents normalized (one shape, one type).
template <typename T, std::size_t QueryHeads, std::size_t KeyValueHeads, auto DModel, std::size_t HeadDim,
          WeightLayout Layout = in_by_out, bool HasBias = false, auto KDim = DModel, auto VDim = DModel>
using grouped_query_attention_weights =
    basic_grouped_query_attention_weights<T, QueryHeads, KeyValueHeads, normalize_extent<DModel>, HeadDim, Layout,
                                          HasBias, normalize_extent<KDim>, normalize_extent<VDim>>;

namespace detail {
template <std::size_t Size, std::size_t Heads>
inline constexpr std::size_t head_width = Size / (Heads == 0 ? 1 : Heads);
}  // namespace detail

/// The weights of narrow multi-head attention: d_model split into `Heads` heads of d_model / Heads columns.
/// With `out_by_in` and biases, and KDim / VDim for keys and values of other widths, it holds exactly
/// PyTorch's nn.MultiheadAttention parameters.
///
/// | member   | projection           |
/// |----------|----------------------|
/// | `query`  | DModel -> DModel     |
/// | `key`    | KDim -> DModel       |
/// | `value`  | VDim -> DModel       |
/// | `output` | DModel -> DModel (W_O) |
///
/// Rule: Heads divides DModel (a compile error naming both numbers).
///
/// Example (the reference text's 7 tokens, d_model = 512, 8 heads, Q = X W_Q):
/// \code
///   static ctattn::multi_head_attention_weights<float, 8, d_model{512}> w;   // 4 MiB: static, not the stack
///   static ctattn::matrix<float, seq{7}, d_model{512}> x;
///   auto y = ctattn::multi_head_attention(x, x, x, w);   // 7 x 512
/// \endcode
template <typename T, std::size_t Heads, auto DModel, WeightLayout Layout = in_by_out, bool HasBias = false,
          auto KDim = DModel, auto VDim = DModel>
struct basic_multi_head_attention_weights {
  /// The rules of the configuration; the attention functions check them again (no second error).
  using rules = rule_list<shape_error::count_must_be_positive<op::multi_head_attention, count<Heads>>,
                          shape_error::heads_must_divide_model_width<op::multi_head_attention, count<Heads>,
                                                                     dim_of<normalize_extent<DModel>>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  using value_type = T;
  static constexpr std::size_t query_heads = Heads;
  static constexpr std::size_t key_value_heads = Heads;
  static constexpr std::size_t head_dim = detail::head_width<extent_size(normalize_extent<DModel>), Heads>;

  linear<T, DModel, DModel, Layout, HasBias> query;
  linear<T, KDim, DModel, Layout, HasBias> key;
  linear<T, VDim, DModel, Layout, HasBias> value;
  linear<T, DModel, DModel, Layout, HasBias> output;

  friend constexpr bool operator==(const basic_multi_head_attention_weights&,
                                   const basic_multi_head_attention_weights&) = default;
};

/// `multi_head_attention_weights<T, Heads, DModel, ...>`: extents normalized, so the weights declared with
/// `32` and the ones `from_torch_multihead` returns (`std::size_t{32}`) are one type.
template <typename T, std::size_t Heads, auto DModel, WeightLayout Layout = in_by_out, bool HasBias = false,
          auto KDim = DModel, auto VDim = DModel>
using multi_head_attention_weights =
    basic_multi_head_attention_weights<T, Heads, normalize_extent<DModel>, Layout, HasBias, normalize_extent<KDim>,
                                       normalize_extent<VDim>>;

namespace detail {
// The same multi-head or grouped-query weights type with layout L.
template <typename W, typename L>
struct with_layout_of;
template <typename L, typename T, std::size_t Heads, auto DModel, typename Layout, bool HasBias, auto KDim, auto VDim>
struct with_layout_of<basic_multi_head_attention_weights<T, Heads, DModel, Layout, HasBias, KDim, VDim>, L> {
  using type = basic_multi_head_attention_weights<T, Heads, DModel, L, HasBias, KDim, VDim>;
};
template <typename L, typename T, std::size_t QueryHeads, std::size_t KeyValueHeads, auto DModel, std::size_t HeadDim,
          typename Layout, bool HasBias, auto KDim, auto VDim>
struct with_layout_of<
    basic_grouped_query_attention_weights<T, QueryHeads, KeyValueHeads, DModel, HeadDim, Layout, HasBias, KDim, VDim>,
    L> {
  using type =
      basic_grouped_query_attention_weights<T, QueryHeads, KeyValueHeads, DModel, HeadDim, L, HasBias, KDim, VDim>;
};
}  // namespace detail

/// Multi-head (or grouped-query) weights with every projection stored in layout `L` (see `ctattn::relayout` for
/// one projection): the same attention, the same exact results; on `constexpr` weights the compiler does the
/// transposing.
///
/// Example:
/// \code
///   constexpr auto w = ctattn::relayout<ctattn::in_by_out>(ctattn::from_torch_multihead<4>(in_w, in_b, out_w, out_b));
/// \endcode
template <WeightLayout L, typename W>
  requires requires { typename detail::with_layout_of<W, L>::type; }
[[nodiscard]] constexpr auto relayout(const W& w) noexcept {
  return typename detail::with_layout_of<W, L>::type{relayout<L>(w.query), relayout<L>(w.key), relayout<L>(w.value),
                                                     relayout<L>(w.output)};
}

namespace detail {

/// The rules of multi-head attention: the weights' own, each input against its projection, as many values as
/// keys, and the mask against n_q x n_kv.
template <typename XQ, typename XK, typename XV, typename W, typename Mask>
using multi_head_rules =
    rule_list<typename W::rules, projection_rules<XQ, query_projection<W>>, projection_rules<XK, key_projection<W>>,
              projection_rules<XV, value_projection<W>>,
              shape_error::key_and_value_counts_must_match<op::multi_head_attention, dim_of<XK::row_extent>,
                                                           dim_of<XV::row_extent>>,
              mask_rules<op::multi_head_attention, typename W::value_type, XQ::row_extent, XK::row_extent, Mask>>;

}  // namespace detail

/// The intermediates of multi-head attention in storage the caller owns (`ctattn::into(output, workspace)`): the
/// projected queries, keys and values of every head, and the heads' outputs side by side before W_O. Declare it
/// static in firmware; usually spelled `multi_head_workspace<XQ, XKV, W>`.
///
/// | member         | shape                         |
/// |----------------|-------------------------------|
/// | `queries`      | n_q x (h_q * d_head)          |
/// | `keys`         | n_kv x (h_kv * d_head)        |
/// | `values`       | n_kv x (h_kv * d_head)        |
/// | `heads_concat` | n_q x (h_q * d_head), W_O's input |
///
/// Example:
/// \code
///   static ctattn::multi_head_workspace<decltype(x), decltype(x), decltype(weights)> workspace;
///   ctattn::multi_head_attention(x, x, x, weights, ctattn::into(y, workspace));
/// \endcode
template <typename T, auto NQ, auto NKV, auto QueryWidth, auto KeyWidth, auto ValueWidth, auto ConcatWidth>
struct basic_multi_head_workspace {
  using value_type = T;
  basic_matrix<T, NQ, QueryWidth> queries;
  basic_matrix<T, NKV, KeyWidth> keys;
  basic_matrix<T, NKV, ValueWidth> values;
  basic_matrix<T, NQ, ConcatWidth> heads_concat;
};

/// The workspace of `multi_head_attention(x_q, x_kv, x_kv, W, ..., into(output, workspace))`: queries from XQ,
/// keys and values from sequences with XKV's rows.
template <FixedMatrix XQ, FixedMatrix XKV, typename W>
using multi_head_workspace =
    basic_multi_head_workspace<typename W::value_type, std::remove_cvref_t<XQ>::row_extent,
                               std::remove_cvref_t<XKV>::row_extent, detail::query_projection<W>::output_extent,
                               detail::key_projection<W>::output_extent, detail::value_projection<W>::output_extent,
                               detail::output_projection<W>::input_extent>;

namespace detail {

// What multi-head attention returns: n_q x W_O's output axis.
template <typename XQ, typename W>
using multi_head_output = basic_matrix<typename W::value_type, XQ::row_extent, output_projection<W>::output_extent>;

/// The rules of `multi_head_attention(query, key, value, weights, options...)`.
template <typename XQ, typename XK, typename XV, typename W, typename... Options>
using multi_head_call_rules =
    rule_list<shape_error::options_must_be_one_of_each_kind<op::multi_head_attention, Options...>,
              multi_head_rules<XQ, XK, XV, W, typename call_options<Options...>::mask_type>,
              into_rules<op::multi_head_attention, typename call_options<Options...>::form_type,
                         multi_head_output<XQ, W>, multi_head_output<XQ, W>, multi_head_workspace<XQ, XK, W>>>;

// The mean of every head's attention weights (PyTorch's average_attn_weights=True), summed over heads in order.
template <typename Output, typename Weights, std::size_t Heads, typename Concat>
constexpr void average_head_weights(multi_head_result<Output, Weights, Heads, Concat>& result) noexcept {
  using T = typename Weights::value_type;
  for (std::size_t i = 0; i < Weights::rows; ++i) {
    for (std::size_t j = 0; j < Weights::cols; ++j) {
      T total{0};
      for (std::size_t h = 0; h < Heads; ++h) total += result.head_weights[h].elements[i][j];
      result.mean_weights.elements[i][j] = total / static_cast<T>(Heads);
    }
  }
}

// Every head's attention from projected Q, K, V into the heads' concatenation (which must hold +0).
template <arithmetic A, bool KeepWeights, typename W, typename Q, typename K, typename V, typename Concat,
          typename Mask, typename Weights>
constexpr void attend_heads(const Q& q, const K& k, const V& v, const Mask& mask, Concat& concat,
                            Weights* head_weights) noexcept {
  using T = typename W::value_type;
  constexpr std::size_t head_dim = W::head_dim;
  constexpr std::size_t group = W::query_heads / W::key_value_heads;
  for (std::size_t h = 0; h < W::query_heads; ++h) {
    const std::size_t kv = h / group;
    const head_columns columns{h * head_dim, kv * head_dim, kv * head_dim, h * head_dim};
    if constexpr (KeepWeights) {
      kernels::attend<A, true, head_dim, head_dim>(q, k, v, mask, concat, &head_weights[h], columns,
                                                   score_divisor<T, head_dim>);
    } else {
      kernels::attend<A, false, head_dim, head_dim>(q, k, v, mask, concat, head_weights, columns,
                                                    score_divisor<T, head_dim>);
    }
  }
}

template <typename XQ, typename XK, typename XV, typename W, typename... Options>
constexpr auto multi_head(const XQ& query, const XK& key, const XV& value, const W& w,
                          const Options&... options) noexcept {
  using form = call_options<Options...>;
  using T = typename W::value_type;
  constexpr std::size_t heads = W::query_heads;
  using weights_type = basic_matrix<T, XQ::row_extent, XK::row_extent>;
  using output_type = multi_head_output<XQ, W>;
  // The heads' outputs side by side: W_O's input axis (d_model for narrow heads), so its name is kept.
  using concat_type = basic_matrix<T, XQ::row_extent, output_projection<W>::input_extent>;
  constexpr arithmetic a = form::arithmetic_kind;
  constexpr bool rules_hold = first_broken<multi_head_call_rules<XQ, XK, XV, W, Options...>>::check();
  if constexpr (form::writes_into) {
    if constexpr (rules_hold) {
      const auto& into = find_option<typename form::form_type>(options...);
      auto& workspace = *into.workspace;
      project_rows<a>(workspace.queries, query, w.query);
      project_rows<a>(workspace.keys, key, w.key);
      project_rows<a>(workspace.values, value, w.value);
      zero(workspace.heads_concat);
      weights_type* none = nullptr;
      attend_heads<a, false, W>(workspace.queries, workspace.keys, workspace.values, mask_of(options...),
                                workspace.heads_concat, none);
      project_rows<a>(*into.output, workspace.heads_concat, w.output);
    }
  } else {
    std::conditional_t<form::returns_weights, multi_head_result<output_type, weights_type, heads, concat_type>,
                       head_output_and_concat<output_type, concat_type>>
        result{};
    if constexpr (rules_hold) {
      const auto q = projected<a>(query, w.query);
      const auto k = projected<a>(key, w.key);
      const auto v = projected<a>(value, w.value);
      if constexpr (form::returns_weights) {
        attend_heads<a, true, W>(q, k, v, mask_of(options...), result.heads_concat, result.head_weights.data());
        average_head_weights(result);
      } else {
        weights_type* none = nullptr;
        attend_heads<a, false, W>(q, k, v, mask_of(options...), result.heads_concat, none);
      }
      project_rows<a>(result.output, result.heads_concat, w.output);
    }
    if constexpr (form::returns_weights) {
      return result;
    } else {
      return result.output;
    }
  }
}

}  // namespace detail

/// Multi-head attention (narrow, or grouped-query when the weights say so): Q = query W_Q, K = key W_K,
/// V = value W_V (plus biases), split into heads of d_model / h columns, attention per head, heads
/// concatenated, then W_O. After the operands, in any order: a mask (applied to every head) and the result's form
/// (ctattn/attention/options.hpp).
///
/// | operand / option                   | shape                                                      |
/// |------------------------------------|------------------------------------------------------------|
/// | `query`                            | n_q x DModel                                               |
/// | `key`                              | n_kv x KDim                                                |
/// | `value`                            | n_kv x VDim                                                |
/// | result                             | n_q x DModel                                               |
/// | `ctattn::with_weights`             | `multi_head_result`: `.output`, `.head_weights[h]` (n_q x n_kv), `.mean_weights`, `.heads_concat` |
/// | `ctattn::into(output, workspace)`  | writes n_q x DModel into `output`, the intermediates into `workspace` (`multi_head_workspace<XQ, XKV, W>`) |
///
/// Rules: the weights' own (heads divide d_model; key/value heads divide query heads); each input's width
/// matches its projection; key and value have matching rows; the mask fits n_q x n_kv; an `into` output and
/// workspace have the call's shapes. Self-attention passes the same matrix three times. Every form computes the
/// same bits.
///
/// Example:
/// \code
///   auto y = ctattn::multi_head_attention(x, x, x, weights, ctattn::causal);
///   auto r = ctattn::multi_head_attention(x, x, x, weights, ctattn::with_weights);   // r.head_weights[0], ...
///   ctattn::multi_head_attention(x, x, x, weights, ctattn::into(y, workspace));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto multi_head_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                                  const Options&... options) noexcept {
  return detail::multi_head(query, key, value, weights, options...);
}

/// \copydoc multi_head_attention
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void multi_head_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                    const Options&... options) noexcept {
  detail::multi_head(query, key, value, weights, options...);
}

/// Grouped-query (and multi-query) attention: `multi_head_attention` with `grouped_query_attention_weights`, the
/// same options. Example: `auto y = ctattn::grouped_query_attention(x, x, x, gqa_weights, ctattn::causal);`
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto grouped_query_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                                     const Options&... options) noexcept {
  return detail::multi_head(query, key, value, weights, options...);
}

/// \copydoc grouped_query_attention
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void grouped_query_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                       const Options&... options) noexcept {
  detail::multi_head(query, key, value, weights, options...);
}

/// PyTorch's nn.MultiheadAttention parameters as ctattn weights (embed_dim = E, kdim = vdim = E): the packed
/// `in_proj_weight` (3E x E) and `in_proj_bias` (3E) are split into W_Q, W_K, W_V in torch's out x in layout.
///
/// Example:
/// \code
///   constexpr auto w = ctattn::from_torch_multihead<2>(in_proj_weight, in_proj_bias, out_proj_weight,
///                                                      out_proj_bias);
/// \endcode
template <std::size_t Heads, typename T, std::size_t E>
[[nodiscard]] constexpr multi_head_attention_weights<T, Heads, E, out_by_in, true> from_torch_multihead(
    const T (&in_proj_weight)[3 * E][E], const T (&in_proj_bias)[3 * E], const T (&out_proj_weight)[E][E],
    const T (&out_proj_bias)[E]) noexcept {
  multi_head_attention_weights<T, Heads, E, out_by_in, true> w{};
  for (std::size_t o = 0; o < E; ++o) {
    for (std::size_t c = 0; c < E; ++c) {
      w.query.weight.elements[o][c] = in_proj_weight[o][c];
      w.key.weight.elements[o][c] = in_proj_weight[E + o][c];
      w.value.weight.elements[o][c] = in_proj_weight[2 * E + o][c];
      w.output.weight.elements[o][c] = out_proj_weight[o][c];
    }
    w.query.bias.elements[0][o] = in_proj_bias[o];
    w.key.bias.elements[0][o] = in_proj_bias[E + o];
    w.value.bias.elements[0][o] = in_proj_bias[2 * E + o];
    w.output.bias.elements[0][o] = out_proj_bias[o];
  }
  return w;
}

/// PyTorch's nn.MultiheadAttention parameters when kdim or vdim differs from embed_dim: torch then keeps
/// `q_proj_weight` (E x E), `k_proj_weight` (E x kdim) and `v_proj_weight` (E x vdim) apart, with the packed
/// `in_proj_bias` (3E). The result holds them in torch's out x in layout, key and value inputs of kdim and vdim
/// features.
///
/// Example:
/// \code
///   constexpr auto w = ctattn::from_torch_multihead<2>(q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias,
///                                                      out_proj_weight, out_proj_bias);   // kdim 6, vdim 4
/// \endcode
template <std::size_t Heads, typename T, std::size_t E, std::size_t KDim, std::size_t VDim>
[[nodiscard]] constexpr multi_head_attention_weights<T, Heads, E, out_by_in, true, KDim, VDim> from_torch_multihead(
    const T (&q_proj_weight)[E][E], const T (&k_proj_weight)[E][KDim], const T (&v_proj_weight)[E][VDim],
    const T (&in_proj_bias)[3 * E], const T (&out_proj_weight)[E][E], const T (&out_proj_bias)[E]) noexcept {
  multi_head_attention_weights<T, Heads, E, out_by_in, true, KDim, VDim> w{};
  for (std::size_t o = 0; o < E; ++o) {
    for (std::size_t c = 0; c < E; ++c) w.query.weight.elements[o][c] = q_proj_weight[o][c];
    for (std::size_t c = 0; c < KDim; ++c) w.key.weight.elements[o][c] = k_proj_weight[o][c];
    for (std::size_t c = 0; c < VDim; ++c) w.value.weight.elements[o][c] = v_proj_weight[o][c];
    for (std::size_t c = 0; c < E; ++c) w.output.weight.elements[o][c] = out_proj_weight[o][c];
    w.query.bias.elements[0][o] = in_proj_bias[o];
    w.key.bias.elements[0][o] = in_proj_bias[E + o];
    w.value.bias.elements[0][o] = in_proj_bias[2 * E + o];
    w.output.bias.elements[0][o] = out_proj_bias[o];
  }
  return w;
}

namespace detail {

template <typename Op, typename XQ, typename XKV, typename Head, std::size_t H, typename... Options>
constexpr auto wide_heads(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                          const Options&... options) noexcept {
  using form = call_options<Options...>;
  if constexpr (form::writes_into) {
    using into_type = typename form::form_type;
    using output_type = std::remove_pointer_t<decltype(into_type::output)>;
    using workspace_type = std::remove_pointer_t<decltype(into_type::workspace)>;
    using rules =
        rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>,
                  shape_error::count_must_be_positive<Op, count<H>>,
                  head_into_rules<Op, output_type, XQ, XKV, Head, workspace_type, typename form::mask_type, H>>;
    if constexpr (first_broken<rules>::check()) {
      const into_type& into = find_option<into_type>(options...);
      output_type& output = *into.output;
      workspace_type& workspace = *into.workspace;
      const auto& mask = mask_of(options...);
      expects(!same_object(output, x_q) && !same_object(output, x_kv));
      constexpr std::size_t d_v = workspace_type::values_type::cols;
      zero(output);
      for (std::size_t h = 0; h < H; ++h) {
        project_head<form::arithmetic_kind>(x_q, x_kv, heads[h], workspace);
        attend_head<form::arithmetic_kind>(output, workspace, mask, h * d_v);
      }
    }
  } else {
    using rules = rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>,
                            shape_error::count_must_be_positive<Op, count<H>>>;
    constexpr arithmetic_option<form::arithmetic_kind> how{};
    using context = decltype(cross_attention(x_q, x_kv, heads[0], mask_of(options...), how));
    using T = typename context::value_type;
    constexpr std::size_t d_v = context::cols;
    using concat_type = basic_matrix<T, context::row_extent, H * d_v>;
    using weights_type = basic_matrix<T, XQ::row_extent, XKV::row_extent>;
    std::conditional_t<form::returns_weights, multi_head_result<concat_type, weights_type, H, concat_type>,
                       head_output<concat_type>>
        result{};
    if constexpr (first_broken<rules>::check()) {
      for (std::size_t h = 0; h < H; ++h) {
        context c{};
        if constexpr (form::returns_weights) {
          const auto with = cross_attention(x_q, x_kv, heads[h], mask_of(options...), with_weights, how);
          c = with.output;
          result.head_weights[h] = with.weights;
        } else {
          c = cross_attention(x_q, x_kv, heads[h], mask_of(options...), how);
        }
        for (std::size_t i = 0; i < context::rows; ++i) {
          for (std::size_t j = 0; j < d_v; ++j) result.output.elements[i][h * d_v + j] = c.elements[i][j];
        }
      }
      if constexpr (form::returns_weights) {
        result.heads_concat = result.output;
        average_head_weights(result);
      }
    }
    if constexpr (form::returns_weights) {
      return result;
    } else {
      return result.output;
    }
  }
}

}  // namespace detail

/// Wide multi-head attention (the reference text's h x d_q x d form): every head projects the full input with
/// its own W_Q, W_K, W_V; the heads' outputs are concatenated.
///
/// | operand | shape                 |
/// |---------|-----------------------|
/// | `x_q`   | n_q x d_model         |
/// | `x_kv`  | n_kv x d_model        |
/// | `heads` | h attention heads (d_model -> d_k, d_k, d_v) |
/// | result  | n_q x (h * d_v)       |
/// | `ctattn::with_weights` | `multi_head_result`: `.output` (n_q x h * d_v), `.head_weights[h]`, `.mean_weights` |
/// | `ctattn::into(output, workspace)` | writes n_q x (h * d_v) into `output` (neither input), one head's Q, K, V at a time into `workspace` (`cross_attention_workspace<XQ, XKV, Head>`) |
///
/// Options as for `self_attention`: a mask (applied to every head) and the result's form.
///
/// Example:
/// \code
///   auto stacked = ctattn::wide_multi_head_attention(x, x, heads);            // 6 x (3 * 28)
///   auto y = ctattn::wide_multi_head_attention(x, x, heads, w_o);             // then W_O
///   static ctattn::cross_attention_workspace<decltype(x), decltype(x), head_type> workspace;   // a head at a time
///   ctattn::wide_multi_head_attention(x, x, heads, ctattn::into(concat, workspace));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, std::size_t H, typename... Options>
  requires(!detail::call_options<Options...>::writes_into && !(Projection<Options> || ...))
[[nodiscard]] constexpr auto wide_multi_head_attention(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                                                       const Options&... options) noexcept {
  return detail::wide_heads<op::wide_multi_head_attention>(x_q, x_kv, heads, options...);
}

/// \copydoc wide_multi_head_attention
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, std::size_t H, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void wide_multi_head_attention(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                                         const Options&... options) noexcept {
  detail::wide_heads<op::wide_multi_head_attention>(x_q, x_kv, heads, options...);
}

/// Wide multi-head attention followed by the output projection W_O (h * d_v -> d_out), with a mask as an option.
/// To write it into caller storage, write the heads with `into` and project with `ctattn::project_into`.
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, std::size_t H, Projection P, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto wide_multi_head_attention(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                                                       const P& output, const Options&... options) noexcept {
  using concat = decltype(wide_multi_head_attention(x_q, x_kv, heads, options...));
  if constexpr (rules_hold<detail::projection_rules<concat, P>>) {
    return detail::projected<detail::call_options<Options...>::arithmetic_kind>(
        wide_multi_head_attention(x_q, x_kv, heads, options...), output);
  } else {
    return project(wide_multi_head_attention(x_q, x_kv, heads, options...), output);  // reports the broken rule
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_MULTI_HEAD_HPP
