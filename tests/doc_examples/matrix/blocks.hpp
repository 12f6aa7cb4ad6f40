// The names the doc examples of ctattn/matrix/blocks.hpp use without defining them: the worked example's
// dimension names, 6 queries of width d_model{16} and their 4 blocks with columns named d_head, and q, k, v.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <array>

struct d_head : ctattn::dimension<"d_head"> {};
inline constexpr ctattn::matrix<float, seq{6}, d_model{16}> queries{};
inline constexpr std::array<ctattn::matrix<float, seq{6}, d_head{4}>, 4> d_head_blocks{};
inline constexpr ctattn::matrix<float, seq{6}, d_k{24}> q{}, k{};
inline constexpr ctattn::matrix<float, seq{6}, d_v{28}> v{};
