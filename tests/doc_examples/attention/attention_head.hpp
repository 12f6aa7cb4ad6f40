// The names the doc examples of ctattn/attention/attention_head.hpp use without defining them: the worked example,
// and 3 decoder tokens attending to its 6 as encoder tokens. The examples are compiled, not run: values matter
// only where an example asserts them.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/attention/multi_head.hpp>  // multi_head_attention_weights, which is not one head

// The projections as torch.rand(24, 16) and torch.rand(28, 16) store them (out x in).
inline constexpr auto& w_query = ctattn_fixtures::worked_example::w_query;
inline constexpr auto& w_key = ctattn_fixtures::worked_example::w_key;
inline constexpr auto& w_value = ctattn_fixtures::worked_example::w_value;

inline constexpr auto encoder_tokens = x;
inline constexpr ctattn::matrix<float, seq{3}, d_model{16}> decoder_tokens{};
inline ctattn::cross_attention_workspace<decltype(decoder_tokens), decltype(encoder_tokens), head_type> workspace;
