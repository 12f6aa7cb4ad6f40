// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_ATTENTION_HEAD_HPP
#define CTATTN_ATTENTION_ATTENTION_HEAD_HPP

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
#include "ctattn/attention/workspace.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// Whether `Head` is one attention head: query, key and value projections and no output projection (multi-head
/// weights are not one head). The rule is `shape_error::argument_must_be_one_attention_head`.
///
/// Example:
/// \code
///   static_assert(ctattn::AttentionHead<ctattn::attention_head<float, 16, 24, 28>>);
///   static_assert(!ctattn::AttentionHead<ctattn::multi_head_attention_weights<float, 4, 16>>);
/// \endcode
template <typename Head>
concept AttentionHead = rules_hold<
    rule_list<shape_error::argument_must_be_one_attention_head<op::self_attention, std::remove_cvref_t<Head>>>>;

/// One attention head: the projections W_Q, W_K (d_model -> d_k) and W_V (d_model -> d_v), with optional
/// biases, in a named weight layout.
///
/// | member  | projection         |
/// |---------|--------------------|
/// | `query` | d_model -> d_k     |
/// | `key`   | d_model -> d_k     |
/// | `value` | d_model -> d_v     |
///
/// Example (the reference text's worked example, weights as torch.rand(24, 16) stores them):
/// \code
///   ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in> head{
///       .query = {ctattn::from_array<d_k{24}, d_model{16}>(w_query)},
///       .key = {ctattn::from_array<d_k{24}, d_model{16}>(w_key)},
///       .value = {ctattn::from_array<d_v{28}, d_model{16}>(w_value)}};
///   auto context = ctattn::self_attention(x, head);   // seq x d_v
/// \endcode
template <Scalar T, auto DModel, auto DK, auto DV, WeightLayout Layout = in_by_out, bool HasBias = false>
struct basic_attention_head {
  linear<T, DModel, DK, Layout, HasBias> query;
  linear<T, DModel, DK, Layout, HasBias> key;
  linear<T, DModel, DV, Layout, HasBias> value;

  friend constexpr bool operator==(const basic_attention_head&, const basic_attention_head&) = default;
};

/// `attention_head<T, DModel, DK, DV, Layout, HasBias>`: the head users write; extents normalized (one shape,
/// one type).
template <typename T, auto DModel, auto DK, auto DV, WeightLayout Layout = in_by_out, bool HasBias = false>
using attention_head =
    basic_attention_head<T, normalize_extent<DModel>, normalize_extent<DK>, normalize_extent<DV>, Layout, HasBias>;

namespace detail {

// Attention through one head: Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V, then attention. Returned, returned with
// the weights, or written into caller storage with the intermediates in a workspace.
template <typename Op, typename XQ, typename XKV, typename Head, typename... Options>
constexpr auto head_attention(const XQ& x_q, const XKV& x_kv, const Head& head, const Options&... options) noexcept {
  using form = call_options<Options...>;
  if constexpr (form::writes_into) {
    using into_type = typename form::form_type;
    using output_type = std::remove_pointer_t<decltype(into_type::output)>;
    using workspace_type = std::remove_pointer_t<decltype(into_type::workspace)>;
    using rules = rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>,
                            shape_error::argument_must_be_one_attention_head<Op, Head>,
                            head_into_rules<Op, output_type, XQ, XKV, Head, workspace_type, typename form::mask_type>>;
    if constexpr (first_broken<rules>::check()) {
      const into_type& into = find_option<into_type>(options...);
      project_head<form::arithmetic_kind>(x_q, x_kv, head, *into.workspace);
      zero(*into.output);
      attend_head<form::arithmetic_kind>(*into.output, *into.workspace, mask_of(options...), 0);
    }
  } else {
    using rules =
        rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>, head_rules<Op, XQ, XKV, Head>>;
    if constexpr (first_broken<rules>::check()) {
      constexpr arithmetic a = form::arithmetic_kind;
      return scaled_dot_product_attention(projected<a>(x_q, head.query), projected<a>(x_kv, head.key),
                                          projected<a>(x_kv, head.value), options...);
    } else {
      return basic_matrix<typename XQ::value_type, XQ::row_extent, std::size_t{1}>{};
    }
  }
}

}  // namespace detail

/// Self-attention: Q = X W_Q, K = X W_K, V = X W_V, then softmax(Q K^T / sqrt(d_k)) V. After the operands, in
/// any order: a mask and the result's form (ctattn/attention/options.hpp).
///
/// | operand / option                   | shape                                              |
/// |------------------------------------|----------------------------------------------------|
/// | `x`                                | n x d_model                                        |
/// | `head`                             | one attention head: d_model -> d_k, d_k, d_v       |
/// | result                             | n x d_v                                            |
/// | `ctattn::with_weights`             | `{.output = n x d_v, .weights = n x n}`            |
/// | `ctattn::into(output, workspace)`  | writes n x d_v into `output` (may be `x`), Q, K, V into `workspace` (`self_attention_workspace<X, Head>`); returns nothing |
///
/// Rules: `head` is one head (multi-head weights are refused: `argument_must_be_one_attention_head`); x's width
/// matches each projection; the mask fits n x n; an `into` output and workspace have the call's shapes. Every
/// form computes the same bits.
///
/// Example:
/// \code
///   auto context = ctattn::self_attention(x, head, ctattn::causal);
///   auto [out, weights] = ctattn::self_attention(x, head, ctattn::with_weights);
///   static ctattn::self_attention_workspace<decltype(x), head_type> workspace;   // firmware: .bss
///   ctattn::self_attention(x, head, ctattn::into(context, workspace));
/// \endcode
template <FixedMatrix X, typename Head, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto self_attention(const X& x, const Head& head, const Options&... options) noexcept {
  return detail::head_attention<op::self_attention>(x, x, head, options...);
}

/// \copydoc self_attention
template <FixedMatrix X, typename Head, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void self_attention(const X& x, const Head& head, const Options&... options) noexcept {
  detail::head_attention<op::self_attention>(x, x, head, options...);
}

/// Cross-attention: queries from one sequence, keys and values from another of a different length but the same
/// width. Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V. Options as for `self_attention`.
///
/// | operand / option                   | shape                                              |
/// |------------------------------------|----------------------------------------------------|
/// | `x_q`                              | n_q x d_model                                      |
/// | `x_kv`                             | n_kv x d_model                                     |
/// | result                             | n_q x d_v                                          |
/// | `ctattn::with_weights`             | `{.output = n_q x d_v, .weights = n_q x n_kv}`     |
/// | `ctattn::into(output, workspace)`  | writes n_q x d_v into `output` (may be `x_q` or `x_kv`), Q, K, V into `workspace` (`cross_attention_workspace<XQ, XKV, Head>`) |
///
/// Example:
/// \code
///   auto context = ctattn::cross_attention(decoder_tokens, encoder_tokens, head);
///   ctattn::cross_attention(decoder_tokens, encoder_tokens, head, ctattn::into(context, workspace));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto cross_attention(const XQ& x_q, const XKV& x_kv, const Head& head,
                                             const Options&... options) noexcept {
  return detail::head_attention<op::cross_attention>(x_q, x_kv, head, options...);
}

/// \copydoc cross_attention
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void cross_attention(const XQ& x_q, const XKV& x_kv, const Head& head, const Options&... options) noexcept {
  detail::head_attention<op::cross_attention>(x_q, x_kv, head, options...);
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_ATTENTION_HEAD_HPP
