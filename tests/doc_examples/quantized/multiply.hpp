// The names the doc examples of ctattn/quantized/multiply.hpp use without defining them: two int8 matrices.
#pragma once

#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::qmatrix<2, 3, ctattn::quantization{0.1, 0}> qa{{{1, 2, 3}, {4, 5, 6}}};
inline constexpr ctattn::qmatrix<3, 2, ctattn::quantization{0.2, 1}> qb{{{1, 0}, {0, 1}, {2, 2}}};
