// The names the doc examples of ctattn/quantized/q16linear.hpp use without defining them: a float linear head 2 -> 1,
// 6 float inputs, the int16 quantizations of a 16x8 layer and its int16 input.
#pragma once

#include <ctattn/attention/projection.hpp>  // ctattn::linear
#include <ctattn/quantized/q16matrix.hpp>

inline constexpr ctattn::linear<float, 2, 1, ctattn::out_by_in, true> head{.weight = {{{0.5f, -1}}},
                                                                           .bias = {{{0.25f}}}};
inline constexpr ctattn::matrix<float, 6, 2> x{};
inline constexpr ctattn::quantization q_in16{0.0002}, q_out16{0.0005};
inline constexpr ctattn::q16matrix<6, 2, q_in16> x16{};
