// The names the doc examples of ctattn/layers/embedding.hpp use without defining them: 6 tokens of width 32.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 6, 32> x{};
