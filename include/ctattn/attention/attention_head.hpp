#ifndef CTATTN_ATTENTION_ATTENTION_HEAD_HPP
#define CTATTN_ATTENTION_ATTENTION_HEAD_HPP

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/rules.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
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
concept AttentionHead =
    rules_hold<rule_list<shape_error::argument_must_be_one_attention_head<op::self_attention, std::remove_cvref_t<Head>>>>;

namespace detail {
// The rules of attention through one head: it is one head, then each input against its projection.
template <typename Op, typename XQ, typename XKV, typename Head>
using head_rules = rule_list<shape_error::argument_must_be_one_attention_head<Op, Head>,
                             projection_rules<XQ, std::remove_cvref_t<decltype(Head::query)>>,
                             projection_rules<XKV, std::remove_cvref_t<decltype(Head::key)>>,
                             projection_rules<XKV, std::remove_cvref_t<decltype(Head::value)>>>;
}  // namespace detail

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
///       .query = {ctattn::from_array(w_query)}, .key = {...}, .value = {...}};
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

/// Self-attention: Q = X W_Q, K = X W_K, V = X W_V, then softmax(Q K^T / sqrt(d_k)) V.
///
/// | operand | shape          |
/// |---------|----------------|
/// | `x`     | n x d_model    |
/// | result  | n x d_v        |
///
/// Example: `auto context = ctattn::self_attention(x, head, ctattn::causal);`
template <FixedMatrix X, typename Head, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto self_attention(const X& x, const Head& head, const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::head_rules<op::self_attention, X, X, Head>>::check()) {
    return scaled_dot_product_attention(project(x, head.query), project(x, head.key), project(x, head.value), mask);
  } else {
    return basic_matrix<typename X::value_type, X::row_extent, std::size_t{1}>{};
  }
}

/// Self-attention that also returns the attention weights (n x n); see `self_attention`.
/// Example: `auto [context, weights] = ctattn::self_attention_with_weights(x, head);`
template <FixedMatrix X, AttentionHead Head, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto self_attention_with_weights(const X& x, const Head& head, const Mask& mask = {}) noexcept {
  return scaled_dot_product_attention_with_weights(project(x, head.query), project(x, head.key),
                                                   project(x, head.value), mask);
}

/// Cross-attention: queries from one sequence, keys and values from another of a different length but the same
/// width. Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V.
///
/// | operand | shape            |
/// |---------|------------------|
/// | `x_q`   | n_q x d_model    |
/// | `x_kv`  | n_kv x d_model   |
/// | result  | n_q x d_v        |
///
/// Example: `auto context = ctattn::cross_attention(decoder_tokens, encoder_tokens, head);`
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto cross_attention(const XQ& x_q, const XKV& x_kv, const Head& head,
                                             const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::head_rules<op::cross_attention, XQ, XKV, Head>>::check()) {
    return scaled_dot_product_attention(project(x_q, head.query), project(x_kv, head.key), project(x_kv, head.value),
                                        mask);
  } else {
    return basic_matrix<typename XQ::value_type, XQ::row_extent, std::size_t{1}>{};
  }
}

/// Cross-attention that also returns the attention weights (n_q x n_kv); see `cross_attention`.
template <FixedMatrix XQ, FixedMatrix XKV, AttentionHead Head, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto cross_attention_with_weights(const XQ& x_q, const XKV& x_kv, const Head& head,
                                                          const Mask& mask = {}) noexcept {
  return scaled_dot_product_attention_with_weights(project(x_q, head.query), project(x_kv, head.key),
                                                   project(x_kv, head.value), mask);
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_ATTENTION_HEAD_HPP
