// Keyword spotting with a KWT-style transformer trained in PyTorch on a synthetic keyword task
// (train_keyword_spotter.py), exported by ctattn-export (keyword_spotter.hpp) and its trained weights imported by
// the build (keyword_spotter_weights.hpp, from keyword_spotter.safetensors).
//   - At compile time: on four held-out samples the model's logits are PyTorch's (static_assert), and the int8
//     model, quantized by the compiler from the ranges ctattn-export recorded, picks the same keyword.
//   - At run time: the float and the int8 model on 1,000 held-out samples (keyword_data.hpp makes the same samples
//     as the Python script): their accuracy, and the float model's against PyTorch's on the same samples.
// Exit code 0 when the float accuracy is PyTorch's (within 2 samples, the near-ties of two summation orders) and
// the int8 accuracy is within 1 point of float's.
#include <cstddef>
#include <cstdio>

#include <ctattn/quantized/model.hpp>

#include "keyword_data.hpp"
#include "keyword_golden.hpp"
#include "keyword_spotter.hpp"          // the model, as ctattn-export wrote it
#include "keyword_spotter_ranges.hpp"   // the int8 ranges ctattn-export recorded
#include "keyword_spotter_weights.hpp"  // generated: inline constexpr kws::keyword_spotter keyword_spotter_weights

namespace {

using int8_spotter = ctattn::quantized_model<kws::keyword_spotter, kws::keyword_spotter_ranges>;
constexpr int8_spotter int8_weights = ctattn::quantize<kws::keyword_spotter_ranges>(keyword_spotter_weights);
constexpr auto input_quantization = int8_spotter::first_layer::input_quantization;

/// The largest |ctattn - PyTorch| over one sample's logits, relative to 1 + |PyTorch|.
constexpr float logit_error(const ctattn::matrix<float, 1, keyword_data::classes>& logits,
                            const float (&torch)[keyword_data::classes]) noexcept {
  float worst = 0;
  for (std::size_t c = 0; c < keyword_data::classes; ++c) {
    const float d = logits(0, c) - torch[c];
    const float e = (d < 0 ? -d : d) / (1 + (torch[c] < 0 ? -torch[c] : torch[c]));
    worst = e > worst ? e : worst;
  }
  return worst;
}

// PyTorch's float32 and ctattn's sum in other orders: the logits agree to 2e-5 (relative to 1 + |logit|), as
// ctattn-export's golden test requires.
constexpr float tolerance = 2e-5f;

template <std::size_t G>
constexpr bool verified() noexcept {
  const auto sample = keyword_data::sample_at(keyword_data::test_seed, G);
  const auto logits = keyword_spotter_weights.forward(sample.frames);
  const auto int8_logits = int8_weights.forward(ctattn::quantize<input_quantization>(sample.frames));
  return logit_error(logits, kws_golden::logits[G]) <= tolerance &&
         keyword_data::keyword_of(int8_logits) == keyword_data::keyword_of(logits);
}

static_assert(verified<0>(), "held-out sample 0: the logits differ from PyTorch's, or int8 picks another keyword");
static_assert(verified<1>(), "held-out sample 1: the logits differ from PyTorch's, or int8 picks another keyword");
static_assert(verified<2>(), "held-out sample 2: the logits differ from PyTorch's, or int8 picks another keyword");
static_assert(verified<3>(), "held-out sample 3: the logits differ from PyTorch's, or int8 picks another keyword");
static_assert(kws_golden::count == 4);

constexpr auto float_footprint = ctattn::layer_footprint<kws::keyword_spotter, kws::keyword_spotter_input>;
constexpr auto int8_footprint =
    ctattn::layer_footprint<int8_spotter, decltype(ctattn::quantize<input_quantization>(kws::keyword_spotter_input{}))>;

}  // namespace

int main() {
  // Rationale: static copies, so that the run-time passes read data the linker lays out (a local copy of a model
  // makes the compiler emit one store per weight).
  static const kws::keyword_spotter model = keyword_spotter_weights;
  static const int8_spotter int8_model = int8_weights;
  std::size_t float_correct = 0;
  std::size_t int8_correct = 0;
  std::size_t same_keyword = 0;
  std::size_t confusion[keyword_data::classes][keyword_data::classes]{};
  for (std::uint32_t i = 0; i < kws_golden::held_out; ++i) {
    const auto sample = keyword_data::sample_at(keyword_data::test_seed, i);
    const int by_float = keyword_data::keyword_of(model.forward(sample.frames, ctattn::exact_arithmetic));
    const int by_int8 =
        keyword_data::keyword_of(int8_model.forward(ctattn::quantize<input_quantization>(sample.frames)));
    float_correct += by_float == sample.label;
    int8_correct += by_int8 == sample.label;
    same_keyword += by_float == by_int8;
    ++confusion[sample.label][by_int8];
  }
  const auto percent = [](std::size_t n) { return 100.0 * static_cast<double>(n) / kws_golden::held_out; };
  std::printf("keyword spotting on %zu held-out samples (49 frames x 10 features, 5 classes):\n", kws_golden::held_out);
  std::printf("  PyTorch, float32   %6.2f%%\n", percent(kws_golden::torch_correct));
  std::printf("  ctattn, float32    %6.2f%%   (weights %zu B, RAM for one inference %zu B)\n", percent(float_correct),
              float_footprint.weight_bytes, float_footprint.ram_bytes());
  std::printf(
      "  ctattn, int8       %6.2f%%   (weights %zu B, RAM for one inference %zu B); same keyword as float "
      "on %zu\n",
      percent(int8_correct), int8_footprint.weight_bytes, int8_footprint.ram_bytes(), same_keyword);
  std::printf("  int8 confusion (rows: the keyword said, 0 = background; columns: the keyword heard):\n");
  for (std::size_t r = 0; r < keyword_data::classes; ++r) {
    std::printf("    %zu:", r);
    for (std::size_t c = 0; c < keyword_data::classes; ++c) std::printf(" %4zu", confusion[r][c]);
    std::printf("\n");
  }
  const std::size_t gap = float_correct > kws_golden::torch_correct ? float_correct - kws_golden::torch_correct
                                                                    : kws_golden::torch_correct - float_correct;
  const bool float_ok = gap <= 2;
  const bool int8_ok = int8_correct + kws_golden::held_out / 100 >= float_correct;
  if (!float_ok) std::printf("FAIL: ctattn's float accuracy is not PyTorch's\n");
  if (!int8_ok) std::printf("FAIL: the int8 accuracy is more than 1 point below float's\n");
  return float_ok && int8_ok ? 0 : 1;
}
