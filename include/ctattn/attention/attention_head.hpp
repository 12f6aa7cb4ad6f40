#ifndef CTATTN_ATTENTION_ATTENTION_HEAD_HPP
#define CTATTN_ATTENTION_ATTENTION_HEAD_HPP

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/scaled_dot_product.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

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
struct attention_head {
  linear<T, DModel, DK, Layout, HasBias> query;
  linear<T, DModel, DK, Layout, HasBias> key;
  linear<T, DModel, DV, Layout, HasBias> value;
};

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
  return scaled_dot_product_attention(project(x, head.query), project(x, head.key), project(x, head.value), mask);
}

/// Self-attention that also returns the attention weights (n x n); see `self_attention`.
/// Example: `auto [context, weights] = ctattn::self_attention_with_weights(x, head);`
template <FixedMatrix X, typename Head, AttentionMask Mask = no_mask_type>
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
  return scaled_dot_product_attention(project(x_q, head.query), project(x_kv, head.key), project(x_kv, head.value),
                                      mask);
}

/// Cross-attention that also returns the attention weights (n_q x n_kv); see `cross_attention`.
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto cross_attention_with_weights(const XQ& x_q, const XKV& x_kv, const Head& head,
                                                          const Mask& mask = {}) noexcept {
  return scaled_dot_product_attention_with_weights(project(x_q, head.query), project(x_kv, head.key),
                                                   project(x_kv, head.value), mask);
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_ATTENTION_HEAD_HPP
