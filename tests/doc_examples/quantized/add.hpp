// The names the doc examples of ctattn/quantized/add.hpp use without defining them: 6 tokens of width 16 and the
// attention's output, in int8.
#pragma once

#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::qmatrix<6, 16, ctattn::quantization{0.05, 3}> x_q{};
inline constexpr ctattn::qmatrix<6, 16, ctattn::quantization{0.02, -7}> attention_q{};
