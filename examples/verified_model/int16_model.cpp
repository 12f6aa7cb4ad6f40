// The verified sorter in 16x8, proved at compile time: the trained weights (sorter.safetensors, imported by the
// build) quantized by the compiler with int16 activations from the ranges ctattn recorded (sorter_ranges.hpp), and
// static_assert checks that the int16 logits on the golden inputs are, bit for bit, those that
// quantize_sorter_16x8.py computes from the definitions with exact integers, that the answers are sorted, and that
// the 16x8 model's error against the float model is at most half the int8 model's on each input. At run time the
// same model computes the same bits.
#include <cstdio>

#include "golden.hpp"
#include "int16_golden.hpp"
#include "int16_sorter.hpp"
#include "sorter_weights.hpp"  // generated: inline constexpr toy::sorter sorter_weights

namespace {

constexpr toy::int16_sorter int16_weights = ctattn::quantize<toy::sorter_ranges, toy::in_16x8>(sorter_weights);

template <std::size_t G>
constexpr bool verified() noexcept {
  const auto logits = int16_weights.forward(golden::inputs[G]);
  return toy::matches_reference(logits, int16_golden::golden_logits[G], golden::inputs[G]);
}

// The 16x8 model's largest |logit - float logit| at most half the int8 model's, the float model computed in float32
// by the compiler (ctattn::int8_error takes either model).
constexpr toy::int8_sorter int8_weights = ctattn::quantize<toy::sorter_ranges>(sorter_weights);
template <std::size_t G>
constexpr bool at_most_half_the_int8_error() noexcept {
  return ctattn::int8_error(int16_weights, sorter_weights, golden::inputs[G]) <=
         0.5 * ctattn::int8_error(int8_weights, sorter_weights, golden::inputs[G]);
}

static_assert(verified<0>(), "golden input 0: the int16 logits differ from the reference, or the answer is not sorted");
static_assert(verified<1>(), "golden input 1: the int16 logits differ from the reference, or the answer is not sorted");
static_assert(verified<2>(), "golden input 2: the int16 logits differ from the reference, or the answer is not sorted");
static_assert(verified<3>(), "golden input 3: the int16 logits differ from the reference, or the answer is not sorted");
// Each in a constant expression of its own (three forward passes each).
static_assert(at_most_half_the_int8_error<0>(), "golden input 0: the 16x8 error is above half the int8 error");
static_assert(at_most_half_the_int8_error<1>(), "golden input 1: the 16x8 error is above half the int8 error");
static_assert(at_most_half_the_int8_error<2>(), "golden input 2: the 16x8 error is above half the int8 error");
static_assert(at_most_half_the_int8_error<3>(), "golden input 3: the 16x8 error is above half the int8 error");

}  // namespace

int main() {
  // Rationale: static, so the copy is data the linker lays out (as in int8_model.cpp).
  static toy::int16_sorter model = int16_weights;
  int failures = 0;
  for (std::size_t g = 0; g < golden::count; ++g) {
    const auto logits = model.forward(golden::inputs[g]);
    const auto answer = toy::answer(logits);
    std::printf("input ");
    for (int d : golden::inputs[g]) std::printf("%d", d);
    std::printf("  ->  ");
    for (int d : answer) std::printf("%d", d);
    std::printf(
        "   (int16 logits: %d differ from the reference; largest |logit - float64 logit|: 16x8 %.4f, int8 "
        "%.4f)\n",
        toy::differing(logits, int16_golden::golden_logits[g]), int16_golden::int16_error[g],
        int16_golden::int8_error[g]);
    failures +=
        toy::differing(logits, int16_golden::golden_logits[g]) + (answer == toy::sorted(golden::inputs[g]) ? 0 : 1);
  }
  constexpr ctattn::footprint int16_memory = toy::int16_sorter_footprint;
  constexpr ctattn::footprint int8_memory = toy::int8_sorter_footprint;
  std::printf(
      "flash (weights, tables): 16x8 %zu bytes, int8 %zu bytes; RAM for one inference: 16x8 %zu bytes, int8 "
      "%zu bytes\n",
      int16_memory.weight_bytes, int8_memory.weight_bytes, int16_memory.ram_bytes(), int8_memory.ram_bytes());
  return failures == 0 ? 0 : 1;
}
