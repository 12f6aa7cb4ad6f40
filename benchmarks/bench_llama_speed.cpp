// Run-time speed of a tiny language model of stories260K's shape (firmware/models/tiny_llama.hpp: vocabulary 512,
// dim 64, 5 layers, 8 heads over 4, SwiGLU hidden 172; 260,032 parameters), one thread: one generation of
// firmware/models/tiny_llama.hpp (an 8-token prompt, then 16 greedy tokens: 23 decoding steps over the key/value
// caches) by ctattn with fast arithmetic (the build's SIMD backend) and with exact arithmetic, and, built with
// CTATTN_LLAMA2C_DIR (a llama2.c checkout), the same steps by llama2.c's run.c compiled with -O3 and the benchmarks'
// target flags (benchmarks/firmware/llama2c_run.c). Before timing, each side's generated ids are checked against
// ctattn's exact ones. Each case reports tokens (steps) per second.
// benchmarks/llama_speed.sh builds and runs it, then times the same model in PyTorch (benchmarks/llama_speed_torch.py).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../firmware/models/tiny_llama.hpp"

#if CTATTN_BENCH_WITH_LLAMA2C
#include "llama2c_layout.hpp"
extern "C" {
int llama2c_run_setup(const float* weights, const int shape[7]);
const float* llama2c_run_forward(int token, int pos);
}
#endif

namespace {

namespace tiny_llama = ctattn_firmware::models::tiny_llama;

// The model in static storage (1 MB of float weights), filled at start-up.
const tiny_llama::model& model() {
  static tiny_llama::model m{};
  static const bool filled = (tiny_llama::make_weights(m), true);
  (void)filled;
  return m;
}

tiny_llama::state state_storage{};
tiny_llama::logits_row logits_storage{};

template <typename Arithmetic>
std::size_t ctattn_generation(std::uint16_t* tokens, Arithmetic arithmetic) {
  return tiny_llama::generate(
      model(), state_storage, logits_storage, tokens, [](std::size_t, const tiny_llama::logits_row&) {}, arithmetic);
}

#if CTATTN_BENCH_WITH_LLAMA2C
// run.c's steps (benchmarks/llama2c_layout.hpp), as benchmarks/firmware/tiny_llama_llama2c.cpp runs them.
std::size_t llama2c_generation(std::uint16_t* tokens) {
  return ctattn_bench::llama2c_generate(llama2c_run_forward, tokens, [](std::size_t, const float*) {});
}
#endif

void rate(benchmark::State& state) {
  state.counters["tokens/s"] = benchmark::Counter(
      static_cast<double>(tiny_llama::steps) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

template <typename Arithmetic>
void llama_ctattn(benchmark::State& state, Arithmetic arithmetic) {
  std::uint16_t tokens[tiny_llama::generated]{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(ctattn_generation(tokens, arithmetic));
    benchmark::ClobberMemory();
  }
  rate(state);
  state.SetLabel(ctattn::simd_backend_name);
}
BENCHMARK_CAPTURE(llama_ctattn, fast, ctattn::fast_arithmetic)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(llama_ctattn, exact, ctattn::exact_arithmetic)->Unit(benchmark::kMicrosecond);

#if CTATTN_BENCH_WITH_LLAMA2C
void llama_llama2c_run(benchmark::State& state) {
  std::uint16_t tokens[tiny_llama::generated]{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(llama2c_generation(tokens));
    benchmark::ClobberMemory();
  }
  rate(state);
  state.SetLabel("llama2.c run.c");
}
BENCHMARK(llama_llama2c_run)->Unit(benchmark::kMicrosecond);
#endif

// Every side generates exact's ids, or the benchmark stops before timing.
bool check_ids() {
  std::uint16_t exact[tiny_llama::generated]{}, other[tiny_llama::generated]{};
  bool ok = ctattn_generation(exact, ctattn::exact_arithmetic) == tiny_llama::generated;
  ok = ok && ctattn_generation(other, ctattn::fast_arithmetic) == tiny_llama::generated;
  for (std::size_t t = 0; t < tiny_llama::generated; ++t) ok = ok && other[t] == exact[t];
#if CTATTN_BENCH_WITH_LLAMA2C
  static float checkpoint[ctattn_bench::llama2c_floats];
  ctattn_bench::to_llama2c(model(), checkpoint);
  ok = ok && llama2c_run_setup(checkpoint, ctattn_bench::llama2c_shape.data()) == 1;
  ok = ok && llama2c_generation(other) == tiny_llama::generated;
  for (std::size_t t = 0; t < tiny_llama::generated; ++t) ok = ok && other[t] == exact[t];
#endif
  std::printf("tiny llama (stories260K's shape), %zu steps a generation; ids%s:", tiny_llama::steps,
              ok ? " equal on every side" : " DIFFER");
  for (const auto t : exact) std::printf(" %u", static_cast<unsigned>(t));
  std::printf("\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (!check_ids()) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
