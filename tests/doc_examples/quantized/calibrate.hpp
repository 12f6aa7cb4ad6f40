// The names the doc examples of ctattn/quantized/calibrate.hpp use without defining them: a float matrix.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 2, 3> x{{{-1, 0, 0.5f}, {1, 2, 3}}};
