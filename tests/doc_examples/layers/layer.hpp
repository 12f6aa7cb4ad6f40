// The names the doc examples of ctattn/layers/layer.hpp use without defining them: 3 rows of width 4, and the
// layers the examples name.
#pragma once

#include <ctattn/layers.hpp>

inline constexpr ctattn::matrix<float, 3, 4> x{};
