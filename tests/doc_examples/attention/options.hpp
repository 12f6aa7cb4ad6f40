// The names the doc examples of ctattn/attention/options.hpp use without defining them: the worked example, and
// the storage of the form that writes into the caller's memory.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/attention/attention_head.hpp>  // self_attention

inline ctattn::matrix<float, seq{6}, d_v{28}> context_storage{};
inline ctattn::self_attention_workspace<decltype(x), head_type> workspace;
