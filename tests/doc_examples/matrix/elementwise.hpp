// The names the doc examples of ctattn/matrix/elementwise.hpp use without defining them: two matrices.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 2, 2> a{{{1, 2}, {3, 4}}}, b{{{4, 3}, {2, 1}}};
