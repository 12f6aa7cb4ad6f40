// The names the doc examples of ctattn/quantized/kv_cache.hpp use without defining them: one quantization for every
// activation, int8 multi-head weights of width 32 (4 heads) and three int8 token rows.
#pragma once

#include <array>

#include <ctattn/quantized/kv_cache.hpp>

inline constexpr ctattn::quantization q{0.05, 0};
inline constexpr ctattn::quantization q_key = q, q_value = q, q_out = q, q_scores = q;
inline constexpr ctattn::qlinear<32, 32, q, q> projection{};
inline constexpr auto w = ctattn::make_qmulti_head_attention_weights<4>(projection, projection, projection, projection);
inline constexpr std::array<ctattn::qmatrix<1, 32, q>, 3> tokens_q{};
