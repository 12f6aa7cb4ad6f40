#ifndef CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_MODES_HPP
#define CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_MODES_HPP

/// \file
/// The verified model in its other quantization modes on the target: verified_sorter_int8.hpp's model quantized with
/// `ctattn::quantize_options` for int8 weights per tensor, int4 weights per channel and per tensor, and int4 weights
/// with the head's int8 (a per-layer override), each model object in flash. The image runs one inference per golden
/// input of each and compares the int8 logits with the compiler's; benchmarks/quantize_modes.sh reads their
/// instructions per inference.
///
/// | value    | shape                        |
/// |----------|------------------------------|
/// | input    | four sequences of six digits |
/// | output   | four 6 x 10 int8 logit matrices |

#include "golden.hpp"
#include "quantized_sorter.hpp"
#include "sorter_weights.hpp"

namespace ctattn_firmware::models {

// One weight scale and one multiplier per linear layer, int8 weights.
inline constexpr ctattn::quantize_options int8_tensor_options{.granularity = ctattn::weight_granularity::per_tensor};
using int8_tensor_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int8_tensor_options>;
inline constexpr int8_tensor_sorter int8_tensor_sorter_weights =
    ctattn::quantize<toy::sorter_ranges, int8_tensor_options>(sorter_weights);

// int4 weights, two a byte, per channel.
inline constexpr ctattn::quantize_options int4_options{.weights = ctattn::weight_format::int4};
using int4_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int4_options>;
inline constexpr int4_sorter int4_sorter_weights = ctattn::quantize<toy::sorter_ranges, int4_options>(sorter_weights);

// The same per tensor, as TFLite Micro takes int4 weights.
inline constexpr ctattn::quantize_options int4_tensor_options{.weights = ctattn::weight_format::int4,
                                                              .granularity = ctattn::weight_granularity::per_tensor};
using int4_tensor_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int4_tensor_options>;
inline constexpr int4_tensor_sorter int4_tensor_sorter_weights =
    ctattn::quantize<toy::sorter_ranges, int4_tensor_options>(sorter_weights);

// int4 weights per channel but the head's, int8 (`quantize_options::overrides`).
inline constexpr ctattn::layer_weights head_in_int8[] = {{"head", ctattn::weight_format::int8}};
inline constexpr ctattn::quantize_options int4_head_int8_options{.weights = ctattn::weight_format::int4,
                                                                 .overrides = head_in_int8};
using int4_head_int8_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges, int4_head_int8_options>;
inline constexpr int4_head_int8_sorter int4_head_int8_sorter_weights =
    ctattn::quantize<toy::sorter_ranges, int4_head_int8_options>(sorter_weights);

inline constexpr char int8_tensor_sorter_name[] = "verified model in int8, weights per tensor";
inline constexpr char int4_sorter_name[] = "verified model in int8 with int4 weights: 2 encoder layers (d_model 32)";
inline constexpr char int4_tensor_sorter_name[] = "verified model in int8 with int4 weights per tensor";
inline constexpr char int4_head_int8_sorter_name[] = "verified model in int8 with int4 weights, the head's int8";
using verified_sorter_int8_per_tensor = verified_sorter_of<int8_tensor_sorter_weights, int8_tensor_sorter_name>;
using verified_sorter_int4 = verified_sorter_of<int4_sorter_weights, int4_sorter_name>;
using verified_sorter_int4_per_tensor = verified_sorter_of<int4_tensor_sorter_weights, int4_tensor_sorter_name>;
using verified_sorter_int4_head_int8 = verified_sorter_of<int4_head_int8_sorter_weights, int4_head_int8_sorter_name>;

// int4 weights halve the linears' bytes; per channel the model object keeps each channel's bias and multiplier, per
// tensor each channel's bias and one multiplier per layer; an int8 head adds its weights' other half.
static_assert(sizeof(int4_tensor_sorter) < sizeof(int4_sorter) && sizeof(int4_sorter) < sizeof(int4_head_int8_sorter) &&
              sizeof(int4_head_int8_sorter) < sizeof(int8_tensor_sorter) &&
              sizeof(int8_tensor_sorter) < sizeof(toy::int8_sorter));
static_assert(verified_sorter_int4::footprint.weight_bytes == sizeof(int4_sorter));

// The compiler's logits for golden input 0 still sort the digits, in every mode.
template <typename Verified>
constexpr bool sorts_golden_input_0() noexcept {
  return toy::answer(Verified::evaluate(Verified::example()).first) == toy::sorted(golden::inputs[0]);
}
// Rationale: one assertion each, so that each evaluation has the compiler's whole budget of steps.
static_assert(sorts_golden_input_0<verified_sorter_int8_per_tensor>());
static_assert(sorts_golden_input_0<verified_sorter_int4>());
static_assert(sorts_golden_input_0<verified_sorter_int4_per_tensor>());
static_assert(sorts_golden_input_0<verified_sorter_int4_head_int8>());

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_VERIFIED_SORTER_MODES_HPP
