// The names the doc examples of ctattn/position/sinusoidal.hpp use without defining them: 6 embedded tokens of
// width 16, and the matrix sum.
#pragma once

#include <ctattn/matrix/elementwise.hpp>  // operator+
#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 6, 16> x{};
