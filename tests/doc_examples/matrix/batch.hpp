// The names the doc examples of ctattn/matrix/batch.hpp use without defining them: the worked example's dimension
// names, and B x h x n x d queries, keys and values (B = 2 sequences, h = 3 heads, n = 4 tokens, d = 5).
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/attention/scaled_dot_product.hpp>

struct batch_axis : ctattn::dimension<"batch"> {};
struct heads : ctattn::dimension<"heads"> {};
inline constexpr ctattn::batch<ctattn::batch<ctattn::matrix<float, seq{4}, d_k{5}>, heads{3}>, batch_axis{2}> queries{},
    keys{};
inline constexpr ctattn::batch<ctattn::batch<ctattn::matrix<float, seq{4}, d_v{5}>, heads{3}>, batch_axis{2}> values{};
