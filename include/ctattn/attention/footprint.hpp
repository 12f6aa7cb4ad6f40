// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_ATTENTION_FOOTPRINT_HPP
#define CTATTN_ATTENTION_FOOTPRINT_HPP

/// \file
/// What an attention configuration costs in memory, known at compile time, so that firmware can
/// `static_assert` it against its flash and RAM budgets before anything is flashed:
///
/// \code
///   constexpr ctattn::footprint fp = ctattn::self_attention_footprint<decltype(x), head_type>;
///   static_assert(fp.weight_bytes <= 8 * 1024, "the weights must fit the flash budget");
///   static_assert(fp.ram_bytes() <= 4 * 1024, "activations, workspace and kernel stack must fit the RAM budget");
/// \endcode
///
/// The figures are the sizes of the objects the `ctattn::into(output, workspace)` form of the attention calls works on
/// (the firmware build checks them against the linker's symbol sizes). Footprints compose: `a + b` is a
/// program that holds both configurations' storage and runs them one after the other.

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>

#include "ctattn/attention/multi_head.hpp"
#include "ctattn/attention/projection.hpp"
#include "ctattn/attention/workspace.hpp"
#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

namespace detail {

template <typename P>
inline constexpr std::size_t projection_bytes =
    sizeof(typename P::weight_type) + (P::has_bias ? sizeof(typename P::bias_type) : 0);

template <typename Head>
inline constexpr std::size_t head_weight_bytes =
    projection_bytes<query_projection<Head>> + projection_bytes<key_projection<Head>> +
    projection_bytes<value_projection<Head>>;

// The attention kernel's stack scratch for n_q queries of d_k against n_kv keys, with the build's default
// arithmetic: the exact kernel's two row buffers (scores and probabilities) of n_kv elements, or the fused SIMD
// kernel's state (its packed key chunk, a block of queries and one of scores, three numbers per query;
// kernels/detail/simd.hpp).
template <typename T, std::size_t NQ, std::size_t NKV, std::size_t DK>
inline constexpr std::size_t kernel_stack_bytes = [] {
  if constexpr (runs_simd<default_arithmetic, T>) {
    return sizeof(simd::attention_kernel<simd_ops, false, DK, 1, NQ, NKV>);
  } else {
    return 2 * NKV * sizeof(T);
  }
}();

template <typename XQ, typename XKV, typename Head, std::size_t Heads, std::size_t Inputs>
inline constexpr footprint heads_footprint = [] {
  using W = head_workspace<XQ, XKV, Head>;
  footprint f{};
  f.weight_bytes = Heads * head_weight_bytes<Head>;
  f.input_bytes = Inputs == 1 ? sizeof(XQ) : sizeof(XQ) + sizeof(XKV);
  f.output_bytes = sizeof(matrix<typename W::value_type, XQ::row_extent, Heads * W::values_type::cols>);
  f.workspace_bytes = sizeof(W);
  f.stack_bytes = kernel_stack_bytes<typename W::value_type, XQ::rows, W::keys_type::rows, W::keys_type::cols>;
  return f;
}();

}  // namespace detail

/// The footprint of `scaled_dot_product_attention(q, k, v, ctattn::into(output))`: no weights, no workspace.
///
/// | field             | value                   |
/// |-------------------|-------------------------|
/// | `weight_bytes`    | 0                       |
/// | `input_bytes`     | sizeof(Q) + sizeof(K) + sizeof(V) |
/// | `output_bytes`    | n_q x d_v elements      |
/// | `workspace_bytes` | 0                       |
/// | `stack_bytes`     | 2 n_kv elements         |
///
/// Example: `static_assert(ctattn::scaled_dot_product_attention_footprint<Q, K, V>.ram_bytes() <= 2048);`
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V>
inline constexpr footprint scaled_dot_product_attention_footprint{
    0, sizeof(Q) + sizeof(K) + sizeof(V), sizeof(basic_matrix<typename Q::value_type, Q::row_extent, V::column_extent>),
    0, detail::kernel_stack_bytes<typename Q::value_type, Q::rows, K::rows, Q::cols>};

/// The footprint of `self_attention(x, head, ctattn::into(output, workspace))`.
///
/// | field             | value                                            |
/// |-------------------|--------------------------------------------------|
/// | `weight_bytes`    | W_Q, W_K, W_V (and biases): d_model (2 d_k + d_v) elements without biases |
/// | `input_bytes`     | sizeof(X): n x d_model elements                  |
/// | `output_bytes`    | n x d_v elements                                 |
/// | `workspace_bytes` | sizeof(self_attention_workspace<X, Head>): n (2 d_k + d_v) elements |
/// | `stack_bytes`     | 2 n elements                                     |
///
/// Example (the worked example: 4864 bytes of weights, 384 of input, 672 of output, 1824 of workspace, 48 of
/// kernel stack):
/// \code
///   constexpr auto fp = ctattn::self_attention_footprint<decltype(x), head_type>;
///   static_assert(fp.ram_bytes() <= 3 * 1024);
/// \endcode
template <FixedMatrix X, detail::head_projections Head>
inline constexpr footprint self_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<X>, std::remove_cvref_t<X>, Head, 1, 1>;

/// The footprint of `cross_attention(x_q, x_kv, head, ctattn::into(output, workspace))`.
///
/// | field             | value                                            |
/// |-------------------|--------------------------------------------------|
/// | `weight_bytes`    | W_Q, W_K, W_V (and biases)                       |
/// | `input_bytes`     | sizeof(XQ) + sizeof(XKV)                         |
/// | `output_bytes`    | n_q x d_v elements                               |
/// | `workspace_bytes` | sizeof(cross_attention_workspace<XQ, XKV, Head>) |
/// | `stack_bytes`     | 2 n_kv elements                                  |
///
/// Example: `static_assert(ctattn::cross_attention_footprint<XQ, XKV, head_type>.workspace_bytes <= 4096);`
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head>
inline constexpr footprint cross_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head, 1, 2>;

/// The footprint of `wide_multi_head_attention(x_q, x_kv, heads, ctattn::into(output, workspace))` with H heads of type
/// Head, where x_q and x_kv are two matrices. One workspace serves every head.
///
/// | field             | value                                            |
/// |-------------------|--------------------------------------------------|
/// | `weight_bytes`    | H heads' W_Q, W_K, W_V (and biases)              |
/// | `input_bytes`     | sizeof(XQ) + sizeof(XKV)                         |
/// | `output_bytes`    | n_q x (H d_v) elements                           |
/// | `workspace_bytes` | sizeof(cross_attention_workspace<XQ, XKV, Head>) (one head's) |
/// | `stack_bytes`     | 2 n_kv elements                                  |
///
/// Example: `constexpr auto fp = ctattn::wide_multi_head_attention_footprint<XQ, XKV, head_type, 3>;`
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head, std::size_t H>
inline constexpr footprint wide_multi_head_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head, H, 2>;

/// `wide_multi_head_attention_footprint` for self-attention, where one matrix x is passed as both x_q and x_kv
/// (counted once in `input_bytes`).
///
/// Example (the worked example with 3 heads: 14592 bytes of weights, 384 of input, 2016 of output, 1824 of
/// workspace):
/// \code
///   constexpr auto fp = ctattn::wide_multi_head_self_attention_footprint<decltype(x), head_type, 3>;
///   static_assert(fp.weight_bytes == 3 * 4864);
/// \endcode
template <FixedMatrix X, detail::head_projections Head, std::size_t H>
inline constexpr footprint wide_multi_head_self_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<X>, std::remove_cvref_t<X>, Head, H, 1>;

/// The footprint of `multi_head_attention(x_q, x_kv, x_kv, weights, ..., into(output, workspace))` (narrow or
/// grouped-query weights W): the four projections' weights, the inputs (x_q, and x_kv once), the output, the
/// workspace (`multi_head_workspace<XQ, XKV, W>`: Q, K, V of every head and their concatenation) and the kernel's
/// two row buffers. Pass the same type twice for self-attention with `Inputs = 1`.
///
/// Example (7 tokens, d_model = 512, 8 heads, float: 4 MiB of weights):
/// \code
///   using x_type = ctattn::matrix<float, 7, 512>;
///   using w_type = ctattn::multi_head_attention_weights<float, 8, 512>;
///   constexpr auto fp = ctattn::multi_head_attention_footprint<x_type, x_type, w_type, 1>;
///   static_assert(fp.weight_bytes == 4 * 512 * 512 * sizeof(float));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, typename W, std::size_t Inputs = 2>
inline constexpr footprint multi_head_attention_footprint = [] {
  using xq = std::remove_cvref_t<XQ>;
  using xkv = std::remove_cvref_t<XKV>;
  using workspace = multi_head_workspace<xq, xkv, W>;
  using T = typename W::value_type;
  footprint f{};
  f.weight_bytes =
      detail::projection_bytes<detail::query_projection<W>> + detail::projection_bytes<detail::key_projection<W>> +
      detail::projection_bytes<detail::value_projection<W>> + detail::projection_bytes<detail::output_projection<W>>;
  f.input_bytes = Inputs == 1 ? sizeof(xq) : sizeof(xq) + sizeof(xkv);
  f.output_bytes = sizeof(basic_matrix<T, xq::row_extent, detail::output_projection<W>::output_extent>);
  f.workspace_bytes = sizeof(workspace);
  f.stack_bytes = detail::kernel_stack_bytes<T, xq::rows, xkv::rows, W::head_dim>;
  return f;
}();

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_FOOTPRINT_HPP
