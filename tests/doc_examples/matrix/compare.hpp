// The names the doc examples of ctattn/matrix/compare.hpp use without defining them: a matrix, and a result with
// the value it is expected to equal.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 2, 2> a{{{1, 2}, {3, 4}}};
inline constexpr ctattn::matrix<float, 2, 2> computed{{{0.5f, 0.25f}, {0.125f, 1}}};
inline constexpr ctattn::matrix<float, 2, 2> expected = computed;
