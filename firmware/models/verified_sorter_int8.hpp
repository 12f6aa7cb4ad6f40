#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT8_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT8_HPP

/// \file
/// The verified model in int8 on the target (examples/verified_model/int8_sorter.hpp): the trained sorter's weights,
/// imported from sorter.safetensors at configure time, quantized by the compiler (`ctattn::quantize`) with the
/// ranges ctattn recorded (sorter_ranges.hpp), in flash as a constexpr `toy::int8_sorter`. The image runs one inference per golden input in
/// integers only and compares the int8 logits with the compiler's, which are the Python reference's
/// (static_assert below and in examples/verified_model/int8_model.cpp).
///
/// | value    | shape                        |
/// |----------|------------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 int8 logit matrices |

#include <cstddef>

#include "golden.hpp"
#include "int8_golden.hpp"
#include "int8_sorter.hpp"
#include "quantized_sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

inline constexpr toy::int8_sorter int8_sorter_weights = ctattn::quantize<toy::sorter_ranges>(sorter_weights);

#if defined(CTATTN_FIRMWARE_STACK_BYTES)
// One inference's activations and scratch (the int8 footprint's RAM) within the stack this board's images reserve:
// 8 KB of the Cortex-M0's 16 KB of RAM, 16 KB elsewhere.
static_assert(toy::int8_sorter_footprint.ram_bytes() <= CTATTN_FIRMWARE_STACK_BYTES,
              "the int8 sorter's RAM for one inference must fit the board's stack");
#endif

inline constexpr char int8_sorter_name[] = "verified model in int8: 2 encoder layers, integers only (d_model 32)";
using verified_sorter_int8 = verified_sorter_of<int8_sorter_weights, int8_sorter_name>;
static_assert(verified_sorter_int8::footprint == toy::int8_sorter_footprint);

// The compiler's int8 logits for golden input 0 are the Python reference's, and sort the digits.
static_assert(toy::matches_reference(verified_sorter_int8::evaluate(verified_sorter_int8::example()).first,
                                     int8_golden::golden_logits[0], golden::inputs[0]));

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT8_HPP
