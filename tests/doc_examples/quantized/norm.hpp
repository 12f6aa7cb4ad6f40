// The names the doc examples of ctattn/quantized/norm.hpp use without defining them: a model's LayerNorms of
// width 32 (norm1, norm), the quantizations of their input and outputs, 6 tokens in int8, and a quantized norm.
#pragma once

#include <ctattn/layers/norm.hpp>
#include <ctattn/quantized/q16matrix.hpp>
#include <ctattn/quantized/qmatrix.hpp>

struct doc_model {
  ctattn::layer_norm<float, 32> norm1{};
  ctattn::layer_norm<float, 32> norm{};
};
inline constexpr doc_model model{};
inline constexpr ctattn::quantization q_x{0.05, 3}, q_norm1{0.02, -1}, q_norm{0.02, 0};
inline constexpr ctattn::qmatrix<6, 32, q_x> x_q{};
inline constexpr auto norm_q = ctattn::quantize_layer_norm<q_x, q_norm>(model.norm);
// 16x8: the int16 quantizations of a LayerNorm's input and output, and 6 tokens in int16.
inline constexpr ctattn::quantization q_x16{0.0005}, q_norm16{0.0002};
inline constexpr ctattn::q16matrix<6, 32, q_x16> x16{};
