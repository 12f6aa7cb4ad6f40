// The names the doc examples of ctattn/quantized/attention.hpp use without defining them: quantizations of the
// input, of the projections, of the scores and of the context; 4 tokens of width 8 in int8, their queries, keys
// and values, and the four int8 projections of multi-head attention (all weights 0).
#pragma once

#include <ctattn/quantized/linear.hpp>
#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::quantization q_x{0.05, 0}, q_qkv{0.04, 2}, q_scores{0.1, -20}, q_context{0.03, 1},
    q_out{0.05, -1};
inline constexpr ctattn::qmatrix<4, 8, q_x> x_q{};
inline constexpr ctattn::qmatrix<4, 8, q_qkv> q_q{}, k_q{}, v_q{};
inline constexpr ctattn::qlinear<8, 8, q_x, q_qkv> wq{}, wk{}, wv{};
inline constexpr ctattn::qlinear<8, 8, q_context, q_out> wo{};
