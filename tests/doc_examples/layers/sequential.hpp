// The names the doc examples of ctattn/layers/sequential.hpp use without defining them: 3 rows of width 4.
#pragma once

#include <ctattn/layers.hpp>

inline constexpr ctattn::matrix<float, 3, 4> x{};
