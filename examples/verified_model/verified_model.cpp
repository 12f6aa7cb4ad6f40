// A transformer trained in PyTorch, proved at compile time: the trained weights (sorter.safetensors) are imported by
// the build (cmake/ctattn_import.cmake writes sorter_weights.hpp), and static_assert checks that the model's logits
// on the golden inputs match PyTorch's and that its answers are right. At run time the same model computes the same
// bits.
#include <cstdio>

#include "golden.hpp"
#include "sorter.hpp"
#include "sorter_weights.hpp"  // generated: inline constexpr toy::sorter sorter_weights

namespace {

// The largest |ctattn - PyTorch| over one input's 6 x 10 logits, relative to 1 + |PyTorch|.
constexpr float logit_error(const ctattn::matrix<float, toy::length, toy::digits>& logits,
                            const float (&torch)[toy::length][toy::digits]) noexcept {
  float worst = 0;
  for (std::size_t i = 0; i < toy::length; ++i) {
    for (std::size_t c = 0; c < toy::digits; ++c) {
      const float d = logits(i, c) - torch[i][c];
      const float e = (d < 0 ? -d : d) / (1 + (torch[i][c] < 0 ? -torch[i][c] : torch[i][c]));
      worst = e > worst ? e : worst;
    }
  }
  return worst;
}

// PyTorch's float32 and ctattn's float32 sum in other orders: the logits agree to 1e-5 (relative to 1 + |logit|).
constexpr float tolerance = 1e-5f;

template <std::size_t G>
constexpr bool verified() noexcept {
  const auto logits = sorter_weights.forward(golden::inputs[G]);
  return logit_error(logits, golden::logits[G]) < tolerance && toy::answer(logits) == toy::sorted(golden::inputs[G]);
}

static_assert(verified<0>(), "golden input 0: the logits differ from PyTorch's, or the answer is not sorted");
static_assert(verified<1>(), "golden input 1: the logits differ from PyTorch's, or the answer is not sorted");
static_assert(verified<2>(), "golden input 2: the logits differ from PyTorch's, or the answer is not sorted");
static_assert(verified<3>(), "golden input 3: the logits differ from PyTorch's, or the answer is not sorted");
static_assert(golden::count == 4);

constexpr auto compile_time = sorter_weights.forward(golden::inputs[0]);

}  // namespace

int main() {
  // The run-time pass on a copy of the model, with the bits of the compile-time one (exact arithmetic).
  // Rationale: static, so the copy is data the linker lays out; a local copy of the 72 KB model made GCC emit 18,000
  // stores into main() and spend 45 s of an -O2 build walking them.
  static toy::sorter model = sorter_weights;
  int failures = 0;
  for (std::size_t g = 0; g < golden::count; ++g) {
    const auto logits = model.forward(golden::inputs[g], ctattn::exact_arithmetic);
    const auto answer = toy::answer(logits);
    std::printf("input ");
    for (int d : golden::inputs[g]) std::printf("%d", d);
    std::printf("  ->  ");
    for (int d : answer) std::printf("%d", d);
    std::printf("   (logits within %.1e of PyTorch's)\n", static_cast<double>(logit_error(logits, golden::logits[g])));
    if (answer != toy::sorted(golden::inputs[g])) ++failures;
    if (g == 0 && !(logits == compile_time)) {
      std::printf("the run-time logits differ from the compile-time ones\n");
      ++failures;
    }
  }
  std::printf("PyTorch's test set: %.2f%% of 10000 sequences sorted exactly\n", 100 * golden::test_sequences_sorted);
  return failures == 0 ? 0 : 1;
}
