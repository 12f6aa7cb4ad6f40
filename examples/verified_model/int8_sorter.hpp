// The verified sorter in int8: the float model (sorter.hpp) quantized by the compiler with the activations'
// quantizations from the ranges the library recorded (record_sorter_ranges.cpp wrote sorter_ranges.hpp), read by
// name. Integers only at run time, the same bits in static_assert, on the host and on a microcontroller without an
// FPU.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include <ctattn/quantized/model.hpp>

#include "sorter.hpp"
#include "sorter_ranges.hpp"

namespace toy {

/// The sorter in int8, quantized by the compiler with the ranges the library recorded (ctattn::quantize; every
/// quantization read by name from sorter_ranges.hpp): embedding tables -> two int8 pre-norm encoder layers ->
/// integer LayerNorm -> per-channel head, one row of int8 logits per position.
///
/// | operand  | shape                                    |
/// |----------|------------------------------------------|
/// | `digits` | six ids in 0..9                          |
/// | result   | `qmatrix<6, 10, Q(head)>`: int8 logits   |
///
/// Its value: `ctattn::quantize<toy::sorter_ranges>(model)` (every linear per channel, every LayerNorm in integers,
/// GELU as a table, the embedding tables per tensor).
using int8_sorter = ctattn::quantized_model<sorter, sorter_ranges>;

/// The memory of one int8 inference (ctattn::footprint), derived as the float sorter's is: the model's object (int8
/// weights, folded biases, multipliers and tables: flash when constexpr), the ids, the logits, and on the stack the
/// intermediate activations with the deepest layer's scratch.
inline constexpr ctattn::footprint int8_sorter_footprint = ctattn::layer_footprint<int8_sorter, digit_ids>;

// What int8 buys on a microcontroller, checked by the compiler: less flash for the weights and less RAM for one
// inference than the float sorter.
static_assert(int8_sorter_footprint.weight_bytes < sorter_footprint.weight_bytes,
              "the int8 sorter must take less flash than the float one");
static_assert(int8_sorter_footprint.ram_bytes() < sorter_footprint.ram_bytes(),
              "the int8 sorter must take less RAM than the float one");
static_assert(int8_sorter_footprint.weight_bytes == sizeof(int8_sorter));

}  // namespace toy
