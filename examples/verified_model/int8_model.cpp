// The verified sorter in int8, proved at compile time: the trained weights (sorter.safetensors, imported by the
// build) are quantized by the compiler with the quantizations of the ranges ctattn recorded (sorter_ranges.hpp),
// and static_assert checks that the int8 logits on the golden inputs are, bit for bit, those that
// quantize_sorter.py computes from the definitions with exact integers, and that the answers are sorted. At run
// time the same model computes the same bits, on the golden inputs and on 64 sequences of the test set.
#include <cstdio>

#include "golden.hpp"
#include "int8_golden.hpp"
#include "int8_sorter.hpp"
#include "sorter_weights.hpp"  // generated: inline constexpr toy::sorter sorter_weights

namespace {

constexpr toy::int8_sorter int8_weights = ctattn::quantize<toy::sorter_ranges>(sorter_weights);

template <std::size_t G>
constexpr bool verified() noexcept {
  const auto logits = int8_weights.forward(golden::inputs[G]);
  return toy::matches_reference(logits, int8_golden::golden_logits[G], golden::inputs[G]);
}

static_assert(verified<0>(), "golden input 0: the int8 logits differ from the reference, or the answer is not sorted");
static_assert(verified<1>(), "golden input 1: the int8 logits differ from the reference, or the answer is not sorted");
static_assert(verified<2>(), "golden input 2: the int8 logits differ from the reference, or the answer is not sorted");
static_assert(verified<3>(), "golden input 3: the int8 logits differ from the reference, or the answer is not sorted");

}  // namespace

int main() {
  // Rationale: static, so the copy is data the linker lays out (as in verified_model.cpp).
  static toy::int8_sorter model = int8_weights;
  int failures = 0;
  for (std::size_t g = 0; g < golden::count; ++g) {
    const auto logits = model.forward(golden::inputs[g]);
    const auto answer = toy::answer(logits);
    std::printf("input ");
    for (int d : golden::inputs[g]) std::printf("%d", d);
    std::printf("  ->  ");
    for (int d : answer) std::printf("%d", d);
    std::printf("   (int8 logits: %d differ from the reference)\n",
                toy::differing(logits, int8_golden::golden_logits[g]));
    failures +=
        toy::differing(logits, int8_golden::golden_logits[g]) + (answer == toy::sorted(golden::inputs[g]) ? 0 : 1);
  }
  int checked_failures = 0;
  for (std::size_t s = 0; s < int8_golden::checked; ++s) {
    checked_failures += toy::differing(model.forward(int8_golden::checked_inputs[s]), int8_golden::checked_logits[s]);
  }
  std::printf("%zu test sequences: %d int8 logits differ from the reference\n", int8_golden::checked, checked_failures);
  std::printf("test set, 10000 sequences sorted exactly: float32 %.2f%%, int8 %.2f%%; answers agreeing %.2f%%\n",
              100 * int8_golden::float_sequences_sorted, 100 * int8_golden::int8_sequences_sorted,
              100 * int8_golden::answers_agree);
  std::printf("largest |int8 logit - float logit|: %.3f (%.1f steps of the logits' int8 scale %.4f)\n",
              int8_golden::largest_logit_difference, int8_golden::largest_logit_difference / int8_golden::logit_step,
              int8_golden::logit_step);
  // The footprints (int8_sorter.hpp checks by static_assert that int8 takes less flash and less RAM).
  constexpr ctattn::footprint int8_memory = toy::int8_sorter_footprint;
  constexpr ctattn::footprint float_memory = toy::sorter_footprint;
  std::printf(
      "flash (weights, tables): int8 %zu bytes, float %zu bytes; RAM for one inference: int8 %zu bytes, "
      "float %zu bytes\n",
      int8_memory.weight_bytes, float_memory.weight_bytes, int8_memory.ram_bytes(), float_memory.ram_bytes());
  return failures + checked_failures == 0 ? 0 : 1;
}
