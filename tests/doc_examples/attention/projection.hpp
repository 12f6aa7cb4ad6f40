// The names the doc examples of ctattn/attention/projection.hpp use without defining them: the worked example's
// x and projections (torch's out x in layout), and its W_query as a matrix.
#pragma once

#include "doc_examples/worked_example.hpp"

inline constexpr auto w = ctattn::from_array<d_k{24}, d_model{16}>(ctattn_fixtures::worked_example::w_query);
inline constexpr auto w_query = head.query;
inline constexpr auto w_key = head.key;
inline constexpr auto torch_query = head.query;
