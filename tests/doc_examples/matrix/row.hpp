// The names the doc examples of ctattn/matrix/row.hpp use without defining them: 6 queries of width 16, and what
// the caller does with a row.
#pragma once

#include <ctattn/matrix/matrix.hpp>

inline constexpr ctattn::matrix<float, 6, 16> queries{};
inline void use(const ctattn::matrix<float, 1, 16>&) {}
