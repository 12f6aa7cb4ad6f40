// Run-time speed of a KWT-1-shaped keyword transformer (chain_proof_kwt.hpp: 98 MFCC frames of 40, a Linear(40, 64)
// per frame, a class token, positions over 99 rows, 12 post-norm encoder layers of d_model 64 with 1 head and an MLP
// of 256, the class token's row, 35 classes; 607K parameters, about 70 M multiply-adds), one thread: float with
// fast arithmetic (the build's SIMD backend) and with exact arithmetic (the scalar kernels), and int8 (quantized at
// start-up with the ranges kwt_record_ranges.cpp recorded; the input's quantization included in the time).
// Before timing it prints how far int8 and fast float are from exact float; each case reports its rate in GFLOP/s
// (2 x 73.7 M multiply-adds per inference) beside the core's FP32 FMA peak measured in the same run (fma_peak).
// benchmarks/kwt_speed.sh builds and runs it, then times the same model in PyTorch (benchmarks/kwt_speed_torch.py).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>

#include <ctattn/quantized/model.hpp>

#include "bench_common.hpp"
#include "chain_proof_kwt.hpp"
#include "kwt_ranges.hpp"  // generated at build time by kwt_record_ranges

namespace {

using int8_kwt = ctattn::quantized_model<kws::kwt, kws::kwt_ranges>;

// The models in static storage (2.4 MB of float weights; 0.6 MB in int8), filled at start-up.
kws::kwt& float_model() {
  static kws::kwt model{};
  static const bool filled = (kws::fill_weights(model), true);
  (void)filled;
  return model;
}
const int8_kwt& int8_model() {
  static const int8_kwt model = ctattn::quantize<kws::kwt_ranges>(float_model());
  return model;
}
const kws::frames frames = kws::example_frames(0);

// One inference's multiply-adds: the frames' Linear, per layer the q, k, v and output projections, the scores and
// their weighted sum, the MLP; the head.
constexpr double macs =
    98.0 * 40 * 64 + 12 * (99.0 * 64 * 192 + 2 * 99.0 * 99 * 64 + 99.0 * 64 * 64 + 2 * 99.0 * 64 * 256) + 64.0 * 35;

void rate(benchmark::State& state) {
  state.counters["GFLOPs"] =
      benchmark::Counter(2 * macs * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

template <typename Arithmetic>
void kwt_float(benchmark::State& state, Arithmetic arithmetic) {
  const kws::kwt& model = float_model();
  for (auto _ : state) {
    auto logits = model.forward(frames, arithmetic);
    benchmark::DoNotOptimize(logits);
    benchmark::ClobberMemory();
  }
  rate(state);
  state.SetLabel(ctattn::simd_backend_name);
}

void kwt_int8(benchmark::State& state) {
  const int8_kwt& model = int8_model();
  for (auto _ : state) {
    auto logits = model.forward(ctattn::quantize<int8_kwt::first_layer::input_quantization>(frames));
    benchmark::DoNotOptimize(logits);
    benchmark::ClobberMemory();
  }
  rate(state);
  state.SetLabel(ctattn::int8_backend_name);
}

// How far fast float and int8 are from exact float on the timed input, before any timing.
const bool checked = [] {
  const auto exact = float_model().forward(frames, ctattn::exact_arithmetic);
  const auto fast = float_model().forward(frames, ctattn::fast_arithmetic);
  float worst = 0;
  for (std::size_t c = 0; c < decltype(exact)::cols; ++c) {
    const float d = fast(0, c) > exact(0, c) ? fast(0, c) - exact(0, c) : exact(0, c) - fast(0, c);
    worst = d > worst ? d : worst;
  }
  std::printf("KWT-1-shaped model: largest |fast - exact| %.3g; largest |int8 - exact| %.3g (ctattn::int8_error)\n",
              static_cast<double>(worst), ctattn::int8_error(int8_model(), float_model(), frames));
  return true;
}();

}  // namespace

BENCHMARK_CAPTURE(kwt_float, fast, ctattn::fast_arithmetic)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(kwt_float, exact, ctattn::exact_arithmetic)->Unit(benchmark::kMillisecond);
BENCHMARK(kwt_int8)->Unit(benchmark::kMillisecond);
BENCHMARK(ctattn_bench::fma_peak)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
