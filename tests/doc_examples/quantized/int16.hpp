// The names the doc examples of ctattn/quantized/int16.hpp use without defining them: int16 queries and keys.
#pragma once

#include <ctattn/quantized/q16matrix.hpp>

inline constexpr ctattn::q16matrix<2, 3, ctattn::quantization{0.001}> q16{{{1000, -2000, 300}, {40, 5, -600}}};
inline constexpr ctattn::q16matrix<4, 3, ctattn::quantization{0.002}> k16{
    {{100, 200, 300}, {-400, 500, 0}, {7, 8, 9}, {0, 0, 1000}}};
