// The names the doc examples of ctattn/layers/feed_forward.hpp use without defining them: 6 tokens of width 64.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 6, 64> x{};
