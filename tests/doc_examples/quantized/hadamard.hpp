// The names the doc examples of ctattn/quantized/hadamard.hpp use without defining them: 6 rows of width 16 in int8.
#pragma once

#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::qmatrix<6, 16, ctattn::quantization{0.05, 3}> x_q{};
