// The names the doc examples of ctattn/attention/kv_cache.hpp use without defining them: tokens of width 32, the
// key, value and query rows of token t, a cache of 16 of them, and multi-head weights of 4 heads, for the
// decoder's self-attention and for its cross-attention over 8 encoder tokens.
#pragma once

#include <ctattn/attention/multi_head.hpp>

#include <array>

inline constexpr ctattn::matrix<float, 1, 32> k_row{}, v_row{};
inline constexpr ctattn::matrix<float, 1, 32> k_t{}, v_t{}, q_t{};
inline ctattn::kv_cache<float, 16, 32> cache{};

inline constexpr std::array<ctattn::matrix<float, 1, 32>, 5> tokens{};
inline constexpr ctattn::multi_head_attention_weights<float, 4, 32> w{};

inline constexpr ctattn::matrix<float, 8, 32> encoder_output{};
inline constexpr ctattn::multi_head_attention_weights<float, 4, 32> cross_weights{};
