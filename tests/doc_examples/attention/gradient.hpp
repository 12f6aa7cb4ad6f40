// The names the doc examples of ctattn/attention/gradient.hpp use without defining them: attention weights and the
// gradient flowing back into them, and an attention call of 4 queries over 5 keys with its output's gradient g.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 4, 5> weights{};
inline constexpr ctattn::matrix<float, 4, 5> upstream{};

inline constexpr ctattn::matrix<float, 4, 6> q{};
inline constexpr ctattn::matrix<float, 5, 6> k{};
inline constexpr ctattn::matrix<float, 5, 3> v{};
inline constexpr ctattn::matrix<float, 4, 3> g{};
