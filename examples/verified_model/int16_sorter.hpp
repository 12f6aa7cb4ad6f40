// The verified sorter in 16x8 (TFLite's mode of int16 activations and int8 weights): the float model (sorter.hpp)
// quantized by the compiler from the same recorded ranges as the int8 sorter (int8_sorter.hpp), every activation
// int16. Integers only at run time, the same bits in static_assert.
#pragma once

#include <ctattn/quantized/model.hpp>

#include "int8_sorter.hpp"

namespace toy {

/// What makes the sorter 16x8: `ctattn::quantize`'s options.
inline constexpr ctattn::quantize_options in_16x8{.activations = ctattn::activation_format::int16};

/// The sorter in 16x8, quantized by the compiler with the ranges the library recorded: int16 embedding tables summed
/// by the int16 ADD -> two 16x8 pre-norm encoder layers -> int16 LayerNorm -> 16x8 head, one row of int16 logits per
/// position.
///
/// | operand  | shape                                     |
/// |----------|-------------------------------------------|
/// | `digits` | six ids in 0..9                           |
/// | result   | `q16matrix<6, 10, Q16(head)>`: int16 logits |
///
/// Its value: `ctattn::quantize<toy::sorter_ranges, toy::in_16x8>(model)`.
using int16_sorter = ctattn::quantized_model<sorter, sorter_ranges, in_16x8>;

/// The memory of one 16x8 inference (ctattn::footprint), as the int8 sorter's.
inline constexpr ctattn::footprint int16_sorter_footprint = ctattn::layer_footprint<int16_sorter, digit_ids>;

static_assert(int16_sorter_footprint.weight_bytes == sizeof(int16_sorter));
// 16x8 keeps int8 weights: its flash grows only by the int64 biases and the int16 tables, and stays below float's.
static_assert(int16_sorter_footprint.weight_bytes < sorter_footprint.weight_bytes,
              "the 16x8 sorter must take less flash than the float one");

}  // namespace toy
