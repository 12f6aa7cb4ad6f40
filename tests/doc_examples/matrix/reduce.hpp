// The names the doc examples of ctattn/matrix/reduce.hpp use without defining them: a matrix.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 2, 3> a{{{1, 2, 3}, {4, 5, 6}}};
