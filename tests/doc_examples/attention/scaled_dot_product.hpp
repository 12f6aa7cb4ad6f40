// The names the doc examples of ctattn/attention/scaled_dot_product.hpp use without defining them: 6 queries over
// 9 keys and values (d_k 24, d_v 28), and storage for the context.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 6, 24> q{};
inline constexpr ctattn::matrix<float, 9, 24> k{};
inline constexpr ctattn::matrix<float, 9, 28> v{};
inline ctattn::matrix<float, 6, 28> context_in_bss{};
