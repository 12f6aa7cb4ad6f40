// The names the doc examples of ctattn/position/rotary.hpp use without defining them: queries and keys of 6
// tokens of width 8.
#pragma once

#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/transpose.hpp>

inline constexpr ctattn::matrix<float, 6, 8> q{}, k{};
