// The names the doc examples of ctattn/layers/llama.hpp use without defining them: a sequence of width 64 (6
// tokens) and one token's row.
#pragma once

#include <ctattn/layers.hpp>

inline constexpr ctattn::matrix<float, 6, 64> x{};
inline constexpr ctattn::matrix<float, 1, 64> x_t{};
