#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_16X8_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_16X8_HPP

/// \file
/// The verified model in 16x8 on the target (examples/verified_model/int16_sorter.hpp): the trained sorter's
/// weights quantized by the compiler with int16 activations and int8 weights (`quantize_options::activations`) from
/// the ranges ctattn recorded, in flash as a constexpr `toy::int16_sorter`. The image runs one inference per golden
/// input in integers only and compares the int16 logits with the compiler's, which are the Python reference's
/// (static_assert below and in examples/verified_model/int16_model.cpp).
///
/// | value    | shape                            |
/// |----------|----------------------------------|
/// | input    | four sequences of six digits     |
/// | output   | four 6 x 10 int16 logit matrices |

#include <cstddef>

#include "golden.hpp"
#include "int16_golden.hpp"
#include "int16_sorter.hpp"
#include "quantized_sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

inline constexpr toy::int16_sorter int16_sorter_weights =
    ctattn::quantize<toy::sorter_ranges, toy::in_16x8>(sorter_weights);

#if defined(CTATTN_FIRMWARE_STACK_BYTES)
// One inference's activations and scratch within the stack this board's images reserve.
static_assert(toy::int16_sorter_footprint.ram_bytes() <= CTATTN_FIRMWARE_STACK_BYTES,
              "the 16x8 sorter's RAM for one inference must fit the board's stack");
#endif

inline constexpr char int16_sorter_name[] = "verified model in 16x8: int16 activations, int8 weights (d_model 32)";
using verified_sorter_16x8 = verified_sorter_of<int16_sorter_weights, int16_sorter_name>;
static_assert(verified_sorter_16x8::footprint == toy::int16_sorter_footprint);

// The compiler's int16 logits for golden input 0 are the Python reference's, and sort the digits.
static_assert(toy::matches_reference(verified_sorter_16x8::evaluate(verified_sorter_16x8::example()).first,
                                     int16_golden::golden_logits[0], golden::inputs[0]));

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_16X8_HPP
