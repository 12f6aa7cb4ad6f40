// The names the doc examples of ctattn/attention/workspace.hpp use without defining them: the worked example, and
// 3 decoder tokens attending to its 6 as encoder tokens, with storage for their context.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/attention/attention_head.hpp>  // self_attention, cross_attention

inline constexpr auto encoder_tokens = x;
inline constexpr ctattn::matrix<float, seq{3}, d_model{16}> decoder_tokens{};
inline ctattn::matrix<float, seq{3}, d_v{28}> context{};
