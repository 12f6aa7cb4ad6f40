#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT4_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT4_HPP

/// \file
/// The verified model in int8 with int4 weights on the target: verified_sorter_int8.hpp's model quantized with
/// `ctattn::quantize_options{.weights = ctattn::weight_format::int4}`, every linear layer's weights two a byte in
/// flash, per channel and per tensor. The image runs one inference per golden input of each and compares the int8
/// logits with the compiler's.
///
/// | value    | shape                        |
/// |----------|------------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 int8 logit matrices |

#include "golden.hpp"
#include "quantized_sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

inline constexpr ctattn::quantize_options int4_options{.weights = ctattn::weight_format::int4};
using int4_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int4_options>;
inline constexpr int4_sorter int4_sorter_weights = ctattn::quantize<toy::sorter_ranges, int4_options>(sorter_weights);

// The same per tensor (one weight scale and one multiplier per linear layer), as TFLite Micro takes int4 weights.
inline constexpr ctattn::quantize_options int4_tensor_options{.weights = ctattn::weight_format::int4,
                                                              .granularity = ctattn::weight_granularity::per_tensor};
using int4_tensor_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int4_tensor_options>;
inline constexpr int4_tensor_sorter int4_tensor_sorter_weights =
    ctattn::quantize<toy::sorter_ranges, int4_tensor_options>(sorter_weights);

inline constexpr char int4_sorter_name[] = "verified model in int8 with int4 weights: 2 encoder layers (d_model 32)";
inline constexpr char int4_tensor_sorter_name[] = "verified model in int8 with int4 weights per tensor";
using verified_sorter_int4 = verified_sorter_of<int4_sorter_weights, int4_sorter_name>;
using verified_sorter_int4_per_tensor = verified_sorter_of<int4_tensor_sorter_weights, int4_tensor_sorter_name>;

// int4 weights halve the linears' bytes; per channel the model object keeps each channel's bias and multiplier, per
// tensor each channel's bias and one multiplier per layer.
static_assert(sizeof(int4_tensor_sorter) < sizeof(int4_sorter) && sizeof(int4_sorter) < sizeof(toy::int8_sorter));
static_assert(verified_sorter_int4::footprint.weight_bytes == sizeof(int4_sorter));

// The compiler's int4 logits for golden input 0 still sort the digits, in both forms.
static_assert(toy::answer(verified_sorter_int4::evaluate(verified_sorter_int4::example()).first) ==
              toy::sorted(golden::inputs[0]));
static_assert(
    toy::answer(verified_sorter_int4_per_tensor::evaluate(verified_sorter_int4_per_tensor::example()).first) ==
    toy::sorted(golden::inputs[0]));

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_INT4_HPP
