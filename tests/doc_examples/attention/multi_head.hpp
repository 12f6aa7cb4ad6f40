// The names the doc examples of ctattn/attention/multi_head.hpp use without defining them: the worked example's
// x (6 x d_model{16}) with multi-head weights of 4 heads, its output y and workspace; the worked example's head 3
// times for the wide form; PyTorch's nn.MultiheadAttention parameters for embed_dim 8 (kdim 6, vdim 4 where kdim
// and vdim differ). The examples are compiled, not run: values matter only where an example asserts them.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <array>

inline constexpr ctattn::multi_head_attention_weights<float, 4, d_model{16}> weights{};
inline ctattn::matrix<float, seq{6}, d_model{16}> y{};
inline ctattn::multi_head_workspace<decltype(x), decltype(x), decltype(weights)> workspace;

inline constexpr std::array<head_type, 3> heads{head, head, head};
inline constexpr ctattn::linear<float, 3 * 28, d_model{16}> w_o{};
inline decltype(ctattn::wide_multi_head_attention(x, x, heads)) concat{};

inline constexpr float in_w[3 * 8][8]{}, in_b[3 * 8]{}, out_w[8][8]{}, out_b[8]{};
inline constexpr auto& in_proj_weight = in_w;
inline constexpr auto& in_proj_bias = in_b;
inline constexpr auto& out_proj_weight = out_w;
inline constexpr auto& out_proj_bias = out_b;
inline constexpr float q_proj_weight[8][8]{}, k_proj_weight[8][6]{}, v_proj_weight[8][4]{};
