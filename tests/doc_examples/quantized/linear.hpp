// The names the doc examples of ctattn/quantized/linear.hpp use without defining them: a float linear head 2 -> 1,
// inputs and outputs seen in calibration, 6 float inputs, the quantizations of an int8 layer and its int8 input.
#pragma once

#include <ctattn/attention/projection.hpp>  // ctattn::linear
#include <ctattn/quantized/calibrate.hpp>
#include <ctattn/quantized/qmatrix.hpp>

inline constexpr ctattn::linear<float, 2, 1, ctattn::out_by_in, true> head{.weight = {{{0.5f, -1}}},
                                                                           .bias = {{{0.25f}}}};
inline constexpr ctattn::matrix<float, 3, 2> calibration_inputs{{{-1, 2}, {0.5f, 0}, {3, -2}}};
inline constexpr ctattn::matrix<float, 3, 1> calibration_outputs{{{-2.25f}, {0.5f}, {3.75f}}};
inline constexpr ctattn::matrix<float, 6, 2> x{};
inline constexpr ctattn::quantization q_in{0.05, 0}, q_out{0.1, -3};
inline constexpr ctattn::qmatrix<6, 2, q_in> x_q{};
