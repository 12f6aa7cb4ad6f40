// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_WORKSPACE_HPP
#define CTATTN_ATTENTION_WORKSPACE_HPP

/// \file
/// The workspaces of attention that writes into storage the caller provides, `ctattn::into(output, workspace)`
/// (see ctattn/attention/options.hpp): the projected queries, keys and values of one head. Nothing is returned by
/// value, so nothing of matrix size lands on the stack: firmware keeps the workspace and the output in static
/// storage (.bss) and the weights in flash. The only stack the kernel needs is two row buffers of n_kv elements
/// (see ctattn/attention/footprint.hpp).
///
/// | call                                                                  | workspace                                  |
/// |-----------------------------------------------------------------------|--------------------------------------------|
/// | `scaled_dot_product_attention(q, k, v, mask, into(out))`              | none                                       |
/// | `self_attention(x, head, mask, into(out, ws))`                        | `self_attention_workspace<X, Head>`        |
/// | `cross_attention(x_q, x_kv, head, mask, into(out, ws))`               | `cross_attention_workspace<XQ, XKV, Head>` |
/// | `wide_multi_head_attention(x_q, x_kv, heads, mask, into(out, ws))`    | `cross_attention_workspace<XQ, XKV, Head>` |
/// | `multi_head_attention(q_in, k_in, v_in, w, mask, into(out, ws))`      | `multi_head_workspace<XQ, XKV, W>`         |
///
/// The calls follow the value-returning forms' rules (the same diagnostics), plus two of their own: the output
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

}  // namespace detail

namespace shape_error {

/// One attention head is three projections, query, key and value (as `ctattn::attention_head`); multi-head
/// weights, which also hold the output projection W_O, are not one head.
template <typename Operation, typename Head>
struct argument_must_be_one_attention_head {
  static constexpr bool holds = detail::head_projections<Head> && !requires { Head::output; };
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: this call takes one attention head (query, key and value projections, as "
                  "ctattn::attention_head); multi-head weights also hold W_O: pass them to "
                  "ctattn::multi_head_attention instead");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

template <typename Head>
using query_projection = std::remove_cvref_t<decltype(Head::query)>;
template <typename Head>
using key_projection = std::remove_cvref_t<decltype(Head::key)>;
template <typename Head>
using value_projection = std::remove_cvref_t<decltype(Head::value)>;
// The output projection W_O of multi-head weights.
template <typename W>
using output_projection = std::remove_cvref_t<decltype(W::output)>;

// The workspace of a head applied to queries from XQ and keys and values from XKV: what `project` returns.
template <typename XQ, typename XKV, typename Head>
using head_workspace =
    attention_workspace<typename XQ::value_type, XQ::row_extent, XKV::row_extent, query_projection<Head>::output_extent,
                        value_projection<Head>::output_extent>;

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
///   ctattn::self_attention(x, head, ctattn::into(context, workspace));
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
///   ctattn::cross_attention(decoder_tokens, encoder_tokens, head, ctattn::into(context, ws));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head>
using cross_attention_workspace = detail::head_workspace<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head>;

namespace detail {

// Two workspaces are interchangeable when their members have the same types (`attention_workspace<float, 6, ...>`
// and `attention_workspace<float, std::size_t{6}, ...>` are): their shapes, as named in a diagnostic.
template <typename W>
struct workspace_shape_of_impl {
  using type = W;  // `no_workspace`, or a type that is no attention workspace: named as it is
};
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
struct workspace_shape_of_impl<basic_attention_workspace<T, NQ, NKV, DK, DV>> {
  using W = basic_attention_workspace<T, NQ, NKV, DK, DV>;
  using type =
      workspace_shape<typename W::value_type, dim_of<W::queries_type::row_extent>, dim_of<W::keys_type::row_extent>,
                      dim_of<W::keys_type::column_extent>, dim_of<W::values_type::column_extent>>;
};
template <typename W>
using workspace_shape_of = typename workspace_shape_of_impl<W>::type;

// The rules of attention through one head: it is one head, then each input against its projection.
// Rationale: a struct rather than an alias, so that the projection rules are formed only for a type that has
// projections; anything else gets the head rule alone, and with it one error.
template <typename Op, typename XQ, typename XKV, typename Head, bool = head_projections<Head>>
struct head_rules_of {
  using type = rule_list<shape_error::argument_must_be_one_attention_head<Op, Head>>;
};
template <typename Op, typename XQ, typename XKV, typename Head>
struct head_rules_of<Op, XQ, XKV, Head, true> {
  using type = rule_list<shape_error::argument_must_be_one_attention_head<Op, Head>,
                         projection_rules<XQ, query_projection<Head>>, projection_rules<XKV, key_projection<Head>>,
                         projection_rules<XKV, value_projection<Head>>>;
};
template <typename Op, typename XQ, typename XKV, typename Head>
using head_rules = typename head_rules_of<Op, XQ, XKV, Head>::type;

// Every rule of attention through one head into caller storage: the head's (above), the attention's over its Q, K
// and V, then the output's and the workspace's. For a type that is no head, the head rule alone.
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads = 1, bool = head_projections<Head>>
struct head_into_rules_of {
  using type = head_rules<Op, XQ, XKV, Head>;
};
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads>
struct head_into_rules_of<Op, Out, XQ, XKV, Head, W, Mask, Heads, true> {
  using workspace = head_workspace<XQ, XKV, Head>;
  using keys = basic_matrix<typename XKV::value_type, XKV::row_extent, key_projection<Head>::output_extent>;
  using type =
      rule_list<head_rules<Op, XQ, XKV, Head>,
                attention_rules<op::scaled_dot_product_attention, typename workspace::queries_type, keys,
                                typename workspace::values_type, Mask>,
                output_rules<Op, Out, typename workspace::queries_type, typename workspace::values_type, Heads>,
                shape_error::workspace_must_match_attention<Op, workspace_shape_of<W>, workspace_shape_of<workspace>>>;
};
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads = 1>
using head_into_rules = typename head_into_rules_of<Op, Out, XQ, XKV, Head, W, Mask, Heads>::type;

// One head's Q, K and V into the workspace.
template <arithmetic A, typename XQ, typename XKV, typename Head, typename W>
constexpr void project_head(const XQ& x_q, const XKV& x_kv, const Head& head, W& workspace) noexcept {
  project_rows<A>(workspace.queries, x_q, head.query);
  project_rows<A>(workspace.keys, x_kv, head.key);
  project_rows<A>(workspace.values, x_kv, head.value);
}

// Attention over the workspace's Q, K and V into the output's columns [offset, offset + d_v), which must hold +0
// (the kernel accumulates).
template <arithmetic A, typename Out, typename W, typename Mask>
constexpr void attend_head(Out& output, const W& workspace, const Mask& mask, std::size_t output_offset) noexcept {
  using T = typename W::value_type;
  using Q = typename W::queries_type;
  using V = typename W::values_type;
  basic_matrix<T, Q::row_extent, W::keys_type::row_extent>* no_weights = nullptr;
  kernels::attend<A, false, Q::cols, V::cols>(workspace.queries, workspace.keys, workspace.values, mask, output,
                                              no_weights, {0, 0, 0, output_offset}, score_divisor<T, Q::cols>);
}

}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_WORKSPACE_HPP
