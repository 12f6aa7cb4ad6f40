#ifndef CTATTN_ATTENTION_WORKSPACE_HPP
#define CTATTN_ATTENTION_WORKSPACE_HPP

/// \file
/// Attention that writes into storage the caller provides: the output and a workspace for the intermediates
/// (the projected queries, keys and values). Nothing is returned by value, so nothing of matrix size lands on
/// the stack: firmware keeps the workspace and the output in static storage (.bss) and the weights in flash.
/// The only stack the kernel needs is two row buffers of n_kv elements (see ctattn/attention/footprint.hpp).
///
/// | call                                                      | the same bits as                      |
/// |-----------------------------------------------------------|---------------------------------------|
/// | `scaled_dot_product_attention_into(out, q, k, v, mask)`   | `scaled_dot_product_attention`        |
/// | `self_attention_into(out, x, head, ws, mask)`             | `self_attention`                      |
/// | `cross_attention_into(out, x_q, x_kv, head, ws, mask)`    | `cross_attention`                     |
/// | `wide_multi_head_attention_into(out, x_q, x_kv, heads, ws, mask)` | `wide_multi_head_attention`   |
///
/// They follow the value-returning functions' rules (the same diagnostics), plus two of their own: the output
/// has the result's shape and element type, and the workspace was declared for this configuration.

#include <array>
#include <cstddef>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
#include "ctattn/detail/config.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

/// The intermediates of one attention head, in storage the caller owns: the projected queries, keys and values.
/// Declare it static (or global) in firmware so that it sits in .bss; reuse it for every call of the same
/// configuration. Usually spelled through `self_attention_workspace` or `cross_attention_workspace`.
///
/// | member    | shape       |
/// |-----------|-------------|
/// | `queries` | n_q x d_k   |
/// | `keys`    | n_kv x d_k  |
/// | `values`  | n_kv x d_v  |
///
/// Its contents after a call are the call's Q, K and V (useful for study and tests); their previous values
/// are never read.
///
/// Example:
/// \code
///   static ctattn::attention_workspace<float, seq{6}, seq{6}, d_k{24}, d_v{28}> ws;   // 6*24 + 6*24 + 6*28 floats
/// \endcode
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
struct basic_attention_workspace {
  using value_type = T;
  using queries_type = matrix<T, NQ, DK>;
  using keys_type = matrix<T, NKV, DK>;
  using values_type = matrix<T, NKV, DV>;

  queries_type queries;
  keys_type keys;
  values_type values;
};

/// `attention_workspace<T, NQ, NKV, DK, DV>`: extents normalized (one shape, one type).
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
using attention_workspace = basic_attention_workspace<T, normalize_extent<NQ>, normalize_extent<NKV>,
                                                      normalize_extent<DK>, normalize_extent<DV>>;

namespace detail {

template <typename W>
struct is_attention_workspace : std::false_type {};
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
struct is_attention_workspace<basic_attention_workspace<T, NQ, NKV, DK, DV>> : std::true_type {};

// What `self_attention` and friends need of a head: three projections named query, key and value.
template <typename Head>
concept head_projections = requires {
  requires Projection<decltype(Head::query)>;
  requires Projection<decltype(Head::key)>;
  requires Projection<decltype(Head::value)>;
};

template <typename Head>
using query_projection = std::remove_cvref_t<decltype(Head::query)>;
template <typename Head>
using key_projection = std::remove_cvref_t<decltype(Head::key)>;
template <typename Head>
using value_projection = std::remove_cvref_t<decltype(Head::value)>;

// The workspace of a head applied to queries from XQ and keys and values from XKV: what `project` returns.
template <typename XQ, typename XKV, typename Head>
using head_workspace = attention_workspace<typename XQ::value_type, XQ::row_extent, XKV::row_extent,
                                           query_projection<Head>::output_extent, value_projection<Head>::output_extent>;

}  // namespace detail

/// Any `ctattn::attention_workspace`.
///
/// Example:
/// \code
///   static_assert(ctattn::AttentionWorkspace<ctattn::self_attention_workspace<decltype(x), head_type>>);
/// \endcode
template <typename W>
concept AttentionWorkspace = detail::is_attention_workspace<std::remove_cvref_t<W>>::value;

/// The workspace of self-attention of X (n x d_model) through Head (d_model -> d_k, d_k, d_v): Q is n x d_k,
/// K n x d_k, V n x d_v, with X's and the head's named dimensions.
///
/// | member    | shape      |
/// |-----------|------------|
/// | `queries` | n x d_k    |
/// | `keys`    | n x d_k    |
/// | `values`  | n x d_v    |
///
/// Example (the worked example: 6 x 16 input, d_k = 24, d_v = 28; 1824 bytes in .bss):
/// \code
///   static ctattn::self_attention_workspace<decltype(x), head_type> workspace;
///   static ctattn::matrix<float, seq{6}, d_v{28}> context;
///   ctattn::self_attention_into(context, x, head, workspace);
/// \endcode
template <FixedMatrix X, detail::head_projections Head>
using self_attention_workspace = detail::head_workspace<std::remove_cvref_t<X>, std::remove_cvref_t<X>, Head>;

/// The workspace of cross-attention: queries from XQ (n_q x d_model), keys and values from XKV (n_kv x d_model).
/// Also the workspace of wide multi-head attention, whose heads use it one after another.
///
/// | member    | shape        |
/// |-----------|--------------|
/// | `queries` | n_q x d_k    |
/// | `keys`    | n_kv x d_k   |
/// | `values`  | n_kv x d_v   |
///
/// Example:
/// \code
///   static ctattn::cross_attention_workspace<decltype(decoder_tokens), decltype(encoder_tokens), head_type> ws;
///   ctattn::cross_attention_into(context, decoder_tokens, encoder_tokens, head, ws);
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head>
using cross_attention_workspace = detail::head_workspace<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head>;

namespace detail {

// The output of attention over Q and V: n_q x d_v (h * d_v when `Heads` heads are concatenated).
template <typename Op, typename Out, typename Q, typename V, std::size_t Heads = 1>
using output_rules =
    rule_list<same_element_rule<Op, Out, Q>,
              shape_error::output_rows_must_match_queries<Op, dim_of<Out::row_extent>, dim_of<Q::row_extent>>,
              shape_error::output_columns_must_match_values<
                  Op, dim_of<Out::column_extent>,
                  std::conditional_t<Heads == 1, dim_of<V::column_extent>, dim<unnamed, Heads * V::cols>>>>;

// Two workspaces are interchangeable when their members have the same types (`attention_workspace<float, 6, ...>`
// and `attention_workspace<float, std::size_t{6}, ...>` are): their shapes, as named in a diagnostic.
template <typename W>
using workspace_shape_of = workspace_shape<typename W::value_type, dim_of<W::queries_type::row_extent>,
                                           dim_of<W::keys_type::row_extent>, dim_of<W::keys_type::column_extent>,
                                           dim_of<W::values_type::column_extent>>;

// Every rule of `cross_attention(x_q, x_kv, head, mask)` (self-attention passes x twice), then the output's
// and the workspace's.
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads = 1>
using head_into_rules =
    rule_list<shape_error::argument_must_be_one_attention_head<Op, Head>, projection_rules<XQ, query_projection<Head>>,
              projection_rules<XKV, key_projection<Head>>, projection_rules<XKV, value_projection<Head>>,
              attention_rules<op::scaled_dot_product_attention, typename head_workspace<XQ, XKV, Head>::queries_type,
                              basic_matrix<typename XKV::value_type, XKV::row_extent,
                                           key_projection<Head>::output_extent>,
                              typename head_workspace<XQ, XKV, Head>::values_type, Mask>,
              output_rules<Op, Out, typename head_workspace<XQ, XKV, Head>::queries_type,
                           typename head_workspace<XQ, XKV, Head>::values_type, Heads>,
              shape_error::workspace_must_match_attention<Op, workspace_shape_of<W>,
                                                          workspace_shape_of<head_workspace<XQ, XKV, Head>>>>;

// One head's Q, K and V into the workspace.
template <typename XQ, typename XKV, typename Head, typename W>
constexpr void project_head(const XQ& x_q, const XKV& x_kv, const Head& head, W& workspace) noexcept {
  project_into(workspace.queries, x_q, head.query);
  project_into(workspace.keys, x_kv, head.key);
  project_into(workspace.values, x_kv, head.value);
}

// Attention over the workspace's Q, K and V into the output's columns [offset, offset + d_v), which must hold +0
// (the kernel accumulates).
template <typename Out, typename W, typename Mask>
constexpr void attend_head(Out& output, const W& workspace, const Mask& mask, std::size_t output_offset) noexcept {
  using T = typename W::value_type;
  using Q = typename W::queries_type;
  using V = typename W::values_type;
  basic_matrix<T, Q::row_extent, W::keys_type::row_extent>* no_weights = nullptr;
  attend<false, Q::cols, V::cols>(workspace.queries, workspace.keys, workspace.values, mask, output, no_weights,
                                  {0, 0, 0, output_offset}, score_divisor<T, Q::cols>);
}

template <typename Out>
constexpr void zero(Out& output) noexcept {
  for (std::size_t i = 0; i < Out::rows; ++i) {
    for (std::size_t j = 0; j < Out::cols; ++j) output.elements[i][j] = typename Out::value_type{0};
  }
}

// Whether `a` and `b` are one object (only possible when their types are the same).
template <typename A, typename B>
constexpr bool same_object(const A& a, const B& b) noexcept {
  if constexpr (std::is_same_v<A, B>) {
    return &a == &b;
  } else {
    (void)a;
    (void)b;
    return false;
  }
}

}  // namespace detail

/// Scaled dot-product attention softmax(Q K^T / sqrt(d_k)) V written into `output`: the same rules, arithmetic
/// and bits as `scaled_dot_product_attention(q, k, v, mask)`, with no matrix on the stack (only the kernel's
/// two row buffers of n_kv elements).
///
/// | operand  | shape       |
/// |----------|-------------|
/// | `output` | n_q x d_v (overwritten; the same element type) |
/// | `q`      | n_q x d_k   |
/// | `k`      | n_kv x d_k  |
/// | `v`      | n_kv x d_v  |
/// | `mask`   | see ctattn/attention/mask.hpp; checked against n_q x n_kv |
///
/// Rules: those of `scaled_dot_product_attention`, and the output's rows match n_q and its columns d_v
/// (`output_rows_must_match_queries`, `output_columns_must_match_values`, `element_types_must_match`).
/// Precondition: `output` is not `v` (it is zeroed before the values are read).
///
/// Example:
/// \code
///   static ctattn::matrix<float, seq{6}, d_v{28}> context;   // .bss
///   ctattn::scaled_dot_product_attention_into(context, q, k, v, ctattn::causal);
/// \endcode
template <FixedMatrix Out, FixedMatrix Q, FixedMatrix K, FixedMatrix V, AttentionMask Mask = no_mask_type>
constexpr void scaled_dot_product_attention_into(Out& output, const Q& q, const K& k, const V& v,
                                                 const Mask& mask = {}) noexcept {
  using rules = rule_list<detail::attention_rules<op::scaled_dot_product_attention, Q, K, V, Mask>,
                          detail::output_rules<op::scaled_dot_product_attention_into, Out, Q, V>>;
  if constexpr (detail::first_broken<rules>::check()) {
    detail::expects(!detail::same_object(output, v) && !detail::same_object(output, q));
    using T = typename Q::value_type;
    detail::zero(output);
    basic_matrix<T, Q::row_extent, K::row_extent>* no_weights = nullptr;
    detail::attend<false, Q::cols, V::cols>(q, k, v, mask, output, no_weights, {0, 0, 0, 0},
                          detail::score_divisor<T, Q::cols>);
  }
}

/// Self-attention written into `output`, its intermediates into `workspace`: Q = X W_Q, K = X W_K, V = X W_V
/// (plus biases) into `workspace.queries/keys/values`, then softmax(Q K^T / sqrt(d_k)) V into `output`. The same
/// rules, arithmetic and bits as `self_attention(x, head, mask)`.
///
/// | operand     | shape                                    |
/// |-------------|------------------------------------------|
/// | `output`    | n x d_v (overwritten)                    |
/// | `x`         | n x d_model                              |
/// | `head`      | d_model -> d_k (query, key), d_v (value) |
/// | `workspace` | `self_attention_workspace<X, Head>`: Q n x d_k, K n x d_k, V n x d_v (overwritten) |
/// | `mask`      | checked against n x n                    |
///
/// Rules: those of `self_attention` (x's width matches each projection; the mask fits), the output's shape
/// (n x d_v, one element type) and the workspace's type (`workspace_must_match_attention`, naming both shapes).
/// `output` may be `x` itself (x is read only before the output is written).
///
/// Example (the worked example: flash holds x and the head, .bss the workspace and the context):
/// \code
///   static ctattn::self_attention_workspace<decltype(x), head_type> workspace;
///   static ctattn::matrix<float, seq{6}, d_v{28}> context;
///   ctattn::self_attention_into(context, x, head, workspace);          // == ctattn::self_attention(x, head)
/// \endcode
template <FixedMatrix Out, FixedMatrix X, detail::head_projections Head, AttentionWorkspace W,
          AttentionMask Mask = no_mask_type>
constexpr void self_attention_into(Out& output, const X& x, const Head& head, W& workspace,
                                   const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::head_into_rules<op::self_attention_into, Out, X, X, Head, W, Mask>>::check()) {
    detail::project_head(x, x, head, workspace);
    detail::zero(output);
    detail::attend_head(output, workspace, mask, 0);
  }
}

/// Cross-attention written into `output`, its intermediates into `workspace`: Q = X_q W_Q, K = X_kv W_K,
/// V = X_kv W_V (plus biases), then softmax(Q K^T / sqrt(d_k)) V. The same rules, arithmetic and bits as
/// `cross_attention(x_q, x_kv, head, mask)`.
///
/// | operand     | shape                                    |
/// |-------------|------------------------------------------|
/// | `output`    | n_q x d_v (overwritten)                  |
/// | `x_q`       | n_q x d_model                            |
/// | `x_kv`      | n_kv x d_model                           |
/// | `head`      | d_model -> d_k (query, key), d_v (value) |
/// | `workspace` | `cross_attention_workspace<XQ, XKV, Head>`: Q n_q x d_k, K n_kv x d_k, V n_kv x d_v |
/// | `mask`      | checked against n_q x n_kv               |
///
/// Rules: those of `cross_attention`, the output's shape (n_q x d_v) and the workspace's type. `output` may be
/// `x_q` or `x_kv` (both are read only before the output is written).
///
/// Example:
/// \code
///   static ctattn::cross_attention_workspace<decltype(decoder_tokens), decltype(encoder_tokens), head_type> ws;
///   static ctattn::matrix<float, target{5}, d_v{28}> context;
///   ctattn::cross_attention_into(context, decoder_tokens, encoder_tokens, head, ws);
/// \endcode
template <FixedMatrix Out, FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head, AttentionWorkspace W,
          AttentionMask Mask = no_mask_type>
constexpr void cross_attention_into(Out& output, const XQ& x_q, const XKV& x_kv, const Head& head, W& workspace,
                                    const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::head_into_rules<op::cross_attention_into, Out, XQ, XKV, Head, W, Mask>>::check()) {
    detail::project_head(x_q, x_kv, head, workspace);
    detail::zero(output);
    detail::attend_head(output, workspace, mask, 0);
  }
}

/// Wide multi-head attention (the reference text's h x d_q x d form) written into `output`: each head projects
/// the full input with its own W_Q, W_K, W_V into the one workspace, then writes its context into its own
/// columns of `output`, [h * d_v, (h + 1) * d_v). The same rules, arithmetic and bits as
/// `wide_multi_head_attention(x_q, x_kv, heads, mask)`, without the concatenation copy; the workspace is one
/// head's, reused by every head.
///
/// | operand     | shape                                    |
/// |-------------|------------------------------------------|
/// | `output`    | n_q x (h * d_v) (overwritten)            |
/// | `x_q`       | n_q x d_model                            |
/// | `x_kv`      | n_kv x d_model (may be x_q: self-attention) |
/// | `heads`     | h attention heads (d_model -> d_k, d_k, d_v) |
/// | `workspace` | `cross_attention_workspace<XQ, XKV, Head>` (one head's Q, K, V) |
/// | `mask`      | checked against n_q x n_kv, applied to every head |
///
/// Rules: those of `cross_attention` for the head type, the output's shape (n_q x h * d_v) and the workspace's
/// type. Precondition: `output` is neither `x_q` nor `x_kv` (later heads read them after earlier heads wrote).
/// For the output projection W_O, project the result: `ctattn::project_into(y, output, w_o)`.
///
/// Example (the worked example with 3 heads: 6 x 84):
/// \code
///   static ctattn::cross_attention_workspace<decltype(x), decltype(x), head_type> workspace;
///   static ctattn::matrix<float, seq{6}, 84> concat;
///   ctattn::wide_multi_head_attention_into(concat, x, x, heads, workspace);   // heads: std::array<head_type, 3>
/// \endcode
template <FixedMatrix Out, FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head, std::size_t H,
          AttentionWorkspace W, AttentionMask Mask = no_mask_type>
constexpr void wide_multi_head_attention_into(Out& output, const XQ& x_q, const XKV& x_kv,
                                              const std::array<Head, H>& heads, W& workspace,
                                              const Mask& mask = {}) noexcept {
  using rules = rule_list<shape_error::count_must_be_positive<op::wide_multi_head_attention_into, count<H>>,
                          detail::head_into_rules<op::wide_multi_head_attention_into, Out, XQ, XKV, Head, W, Mask, H>>;
  if constexpr (detail::first_broken<rules>::check()) {
    detail::expects(!detail::same_object(output, x_q) && !detail::same_object(output, x_kv));
    constexpr std::size_t d_v = W::values_type::cols;
    detail::zero(output);
    for (std::size_t h = 0; h < H; ++h) {
      detail::project_head(x_q, x_kv, heads[h], workspace);
      detail::attend_head(output, workspace, mask, h * d_v);
    }
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_WORKSPACE_HPP
