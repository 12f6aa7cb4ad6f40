// What each quantization mode of ctattn::quantize costs and buys (int8, int4 weights, 16x8), on the verified sorter (examples/verified_model:
// 2 encoder layers, d_model 32, trained), the keyword spotter (examples/keyword_spotting: KWT at KWT-Tiny's size,
// trained) and a model of KWT-1's size (chain_proof_kwt.hpp: 12 layers, d_model 64, 611K parameters, weights fixed
// by their place), printed as the markdown tables of docs/quantized.md:
//   - the model's bytes (sizeof of the quantized model on a build without packed kernels, as on a Cortex-M: its
//     flash), against the int8 model's;
//   - the sorter's answers on 2,000 random sequences of six digits, and the largest |int8 logit - float logit| over
//     them; the keyword spotter's accuracy on its 1,000 held-out samples; KWT-1's largest |error| over four inputs,
//     against the spread of its float logits, and the inputs whose class is float's;
//   - instructions per inference on a Cortex-M, when given (benchmarks/quantize_modes.sh reads them from the
//     firmware images verified_sorter_int8, verified_sorter_modes and verified_sorter_16x8).
//
//   tool_quantize_modes [--instructions BOARD N1 N2 N3 N4 N5 N6]   (N in the order of the modes below)
// benchmarks/quantize_modes.sh builds it and writes its tables into docs/quantized.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ctattn/quantized/model.hpp>

#include "chain_proof_kwt.hpp"
#include "int8_sorter.hpp"
#include "keyword_data.hpp"
#include "keyword_golden.hpp"
#include "keyword_spotter.hpp"
#include "keyword_spotter_ranges.hpp"
#include "keyword_spotter_weights.hpp"  // generated: inline constexpr kws::keyword_spotter keyword_spotter_weights
#include "kwt_ranges.hpp"               // generated at build time by kwt_record_ranges
#include "sorter_weights.hpp"           // generated: inline constexpr toy::sorter sorter_weights

namespace {

using ctattn::weight_format;
using ctattn::weight_granularity;

// The overrides of the last mode: every layer int4 but the head (named `mlp_head` in the keyword spotter).
inline constexpr ctattn::layer_weights head_in_int8[] = {{"head", weight_format::int8}};
inline constexpr ctattn::layer_weights mlp_head_in_int8[] = {{"mlp_head", weight_format::int8}};

// Mode m, in the order of the tables and of --instructions, the head named by `head`.
constexpr ctattn::quantize_options mode(std::size_t m, ctattn::layer_weights_table head) {
  constexpr ctattn::quantize_options modes[] = {
      {},
      {.granularity = weight_granularity::per_tensor},
      {.weights = weight_format::int4},
      {.weights = weight_format::int4, .granularity = weight_granularity::per_tensor},
      {.weights = weight_format::int4},
      {.activations = ctattn::activation_format::int16},
  };
  ctattn::quantize_options options = modes[m];
  if (m == 4) options.overrides = head;
  return options;
}
inline constexpr const char* mode_names[] = {
    "int8, per channel (the default)",
    "int8, per tensor",
    "int4, per channel",
    "int4, per tensor (TFLite Micro's int4)",
    "int4, per channel, the head int8",
    "16x8 (int16 activations, int8 weights)",
};
constexpr std::size_t mode_count = std::size(mode_names);

// A model quantized at run time (from a copy the compiler cannot see into), in static storage: KWT-1's int8 form is
// 0.6 MB.
template <const auto& Ranges, ctattn::quantize_options Options, typename M>
const ctattn::quantized_model<M, Ranges, Options>& quantized(const M& model) {
  static ctattn::quantized_model<M, Ranges, Options> q{};
  q = ctattn::quantize<Ranges, Options>(model);
  return q;
}

// The next of a fixed sequence of random digits (a 32-bit linear congruential generator).
int next_digit(std::uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return static_cast<int>((state >> 24) % 10);
}

struct sorter_row {
  std::size_t bytes;
  int sorted;
  double error;
};

template <std::size_t Mode>
sorter_row measure_sorter(const toy::sorter& model, int sequences) {
  const auto& q = quantized<toy::sorter_ranges, mode(Mode, head_in_int8)>(model);
  sorter_row row{sizeof(q), 0, 0.0};
  std::uint32_t state = 1;
  for (int s = 0; s < sequences; ++s) {
    toy::digit_ids ids{};
    for (int& d : ids) d = next_digit(state);
    const auto logits = q.forward(ids);
    row.sorted += toy::answer(logits) == toy::sorted(ids) ? 1 : 0;
    row.error = std::max(row.error, ctattn::int8_error(q, model, ids));
  }
  return row;
}

struct spotter_row {
  std::size_t bytes;
  std::size_t correct;
  std::size_t same_keyword;
};

template <std::size_t Mode>
spotter_row measure_spotter(const kws::keyword_spotter& model) {
  const auto& q = quantized<kws::keyword_spotter_ranges, mode(Mode, mlp_head_in_int8)>(model);
  spotter_row row{sizeof(q), 0, 0};
  for (std::uint32_t i = 0; i < kws_golden::held_out; ++i) {
    const auto sample = keyword_data::sample_at(keyword_data::test_seed, i);
    const int by_float = keyword_data::keyword_of(model.forward(sample.frames, ctattn::exact_arithmetic));
    const int by_mode =
        keyword_data::keyword_of(q.forward(ctattn::quantized_input<std::remove_cvref_t<decltype(q)>>(sample.frames)));
    row.correct += by_mode == sample.label ? 1 : 0;
    row.same_keyword += by_mode == by_float ? 1 : 0;
  }
  return row;
}

struct kwt_row {
  std::size_t bytes;
  double error;
  int same_class;
};

template <typename Logits>
std::size_t class_of(const Logits& logits) {
  std::size_t best = 0;
  for (std::size_t c = 1; c < Logits::cols; ++c) best = logits(0, c) > logits(0, best) ? c : best;
  return best;
}

template <std::size_t Mode>
kwt_row measure_kwt(const kws::kwt& model, const std::array<kws::frames, 4>& inputs) {
  const auto& q = quantized<kws::kwt_ranges, mode(Mode, head_in_int8)>(model);
  kwt_row row{sizeof(q), 0.0, 0};
  for (const kws::frames& x : inputs) {
    const auto logits = q.forward(ctattn::quantized_input<std::remove_cvref_t<decltype(q)>>(x));
    row.error = std::max(row.error, ctattn::int8_error(q, model, x));
    row.same_class += class_of(ctattn::dequantize(logits)) == class_of(model.forward(x)) ? 1 : 0;
  }
  return row;
}

// n with a comma between each three digits.
// Rationale: written into a buffer rather than by std::string::insert, which GCC 12 at -O2 wrongly reports as an
// overlapping memcpy (-Wrestrict).
std::string with_commas(unsigned long long n) {
  char digits[32];
  const int count = std::snprintf(digits, sizeof digits, "%llu", n);
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0 && (count - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// a / b as a ratio.
double ratio(unsigned long long a, unsigned long long b) { return static_cast<double>(a) / static_cast<double>(b); }

}  // namespace

int main(int argc, char** argv) {
  const char* board = nullptr;
  unsigned long long instructions[mode_count]{};
  if (argc == static_cast<int>(mode_count) + 3 && std::strcmp(argv[1], "--instructions") == 0) {
    board = argv[2];
    for (std::size_t m = 0; m < mode_count; ++m) instructions[m] = std::strtoull(argv[3 + m], nullptr, 10);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: tool_quantize_modes [--instructions BOARD N1 ... N%zu]\n", mode_count);
    return 2;
  }

  static toy::sorter sorter = sorter_weights;
  constexpr int sequences = 2000;
  const sorter_row sorter_rows[] = {measure_sorter<0>(sorter, sequences), measure_sorter<1>(sorter, sequences),
                                    measure_sorter<2>(sorter, sequences), measure_sorter<3>(sorter, sequences),
                                    measure_sorter<4>(sorter, sequences), measure_sorter<5>(sorter, sequences)};
  std::printf("The verified sorter (2 encoder layers, d_model 32; float model %s bytes), on %d random sequences:\n\n",
              with_commas(sizeof(toy::sorter)).c_str(), sequences);
  std::printf("| mode | model bytes (x int8) | sequences sorted | largest \\|error\\| | instructions%s%s%s |\n",
              board ? " on `" : "", board ? board : "", board ? "` (x int8)" : "");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (std::size_t m = 0; m < mode_count; ++m) {
    const sorter_row& r = sorter_rows[m];
    std::string cost = "not measured";
    if (board) {
      char times[32];
      std::snprintf(times, sizeof times, " (%.2fx)", ratio(instructions[m], instructions[0]));
      cost = with_commas(instructions[m]) + times;
    }
    std::printf("| %s | %s (%.2fx) | %d | %.2f | %s |\n", mode_names[m], with_commas(r.bytes).c_str(),
                ratio(r.bytes, sorter_rows[0].bytes), r.sorted, r.error, cost.c_str());
  }

  static kws::keyword_spotter spotter = keyword_spotter_weights;
  std::size_t float_correct = 0;
  for (std::uint32_t i = 0; i < kws_golden::held_out; ++i) {
    const auto sample = keyword_data::sample_at(keyword_data::test_seed, i);
    float_correct += keyword_data::keyword_of(spotter.forward(sample.frames, ctattn::exact_arithmetic)) == sample.label;
  }
  const spotter_row spotter_rows[] = {measure_spotter<0>(spotter), measure_spotter<1>(spotter),
                                      measure_spotter<2>(spotter), measure_spotter<3>(spotter),
                                      measure_spotter<4>(spotter), measure_spotter<5>(spotter)};
  const auto percent = [](std::size_t n) { return 100.0 * static_cast<double>(n) / kws_golden::held_out; };
  std::printf(
      "\nThe keyword spotter (KWT at KWT-Tiny's size: 2 post-norm layers, d_model 16, trained; float model %s "
      "bytes, %.2f%% right), on its %zu held-out samples:\n\n",
      with_commas(sizeof(kws::keyword_spotter)).c_str(), percent(float_correct), kws_golden::held_out);
  std::printf("| mode | model bytes (x int8) | right | the keyword float hears |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (std::size_t m = 0; m < mode_count; ++m) {
    const spotter_row& r = spotter_rows[m];
    std::printf("| %s | %s (%.2fx) | %.2f%% | %zu |\n", mode_names[m], with_commas(r.bytes).c_str(),
                ratio(r.bytes, spotter_rows[0].bytes), percent(r.correct), r.same_keyword);
  }

  static kws::kwt kwt{};
  kws::fill_weights(kwt);
  const std::array<kws::frames, 4> inputs{kws::example_frames(0), kws::example_frames(1), kws::example_frames(2),
                                          kws::example_frames(3)};
  double lo = 0.0, hi = 0.0;
  for (const kws::frames& x : inputs) {
    const auto y = kwt.forward(x);
    for (std::size_t c = 0; c < decltype(y)::cols; ++c) {
      lo = std::min(lo, static_cast<double>(y(0, c)));
      hi = std::max(hi, static_cast<double>(y(0, c)));
    }
  }
  const kwt_row kwt_rows[] = {measure_kwt<0>(kwt, inputs), measure_kwt<1>(kwt, inputs), measure_kwt<2>(kwt, inputs),
                              measure_kwt<3>(kwt, inputs), measure_kwt<4>(kwt, inputs), measure_kwt<5>(kwt, inputs)};
  std::printf(
      "\nKWT-1's size (12 layers, d_model 64, 611,107 parameters, weights fixed by their place; float model %s "
      "bytes), on 4 inputs whose float logits span %.2f:\n\n",
      with_commas(sizeof(kws::kwt)).c_str(), hi - lo);
  std::printf("| mode | model bytes (x int8) | largest \\|error\\| (of the span) | inputs of float's class |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (std::size_t m = 0; m < mode_count; ++m) {
    const kwt_row& r = kwt_rows[m];
    std::printf("| %s | %s (%.2fx) | %.3f (%.3f) | %d of 4 |\n", mode_names[m], with_commas(r.bytes).c_str(),
                ratio(r.bytes, kwt_rows[0].bytes), r.error, r.error / (hi - lo), r.same_class);
  }
  return 0;
}
