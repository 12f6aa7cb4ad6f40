// The names the doc examples of ctattn/quantized/softmax.hpp use without defining them: int8 attention scores.
#pragma once

#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::qmatrix<2, 3, ctattn::quantization{0.1, -20}> scores_q{{{10, 20, 30}, {-5, 0, 5}}};
