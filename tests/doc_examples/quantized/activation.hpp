// The names the doc examples of ctattn/quantized/activation.hpp use without defining them: the quantizations of a
// feed-forward block's hidden layer and of its GELU, 6 hidden rows of width 64 in int8, and GELU's table.
#pragma once

#include <ctattn/layers/activation.hpp>  // ctattn::gelu
#include <ctattn/quantized/q16matrix.hpp>
#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::quantization q_hidden{0.05, -10}, q_gelu{0.03, -120};
inline constexpr auto hidden_q = ctattn::quantize<q_hidden>(ctattn::matrix<float, 6, 64>{});
inline constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
// 16x8: the int16 quantizations of the hidden layer and of its GELU, and 6 hidden rows in int16.
inline constexpr ctattn::quantization q_hidden16{0.0004}, q_gelu16{0.0003};
inline constexpr ctattn::q16matrix<6, 64, q_hidden16> hidden16{};
