// Run-time speed of the scalar ctattn::math::exp against std::exp, float and double: throughput over an array
// of arguments like those a softmax sees (x - max(x), in [-20, 0]) and over the whole finite range.
// ns per element = 1e9 / items_per_second. The SIMD issue will vectorize the same computation.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "ctattn/math/exp.hpp"

namespace {

constexpr std::size_t n = 4096;

template <class T>
std::vector<T> arguments(T lo, T hi) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<T> dist(lo, hi);
  std::vector<T> x(n);
  for (T& v : x) v = dist(rng);
  return x;
}

template <class T, class F>
void run(benchmark::State& state, T lo, T hi, F f) {
  const std::vector<T> x = arguments(lo, hi);
  std::vector<T> y(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) y[i] = f(x[i]);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

template <class T>
void ctattn_exp_softmax(benchmark::State& state) {
  run<T>(state, T(-20), T(0), [](T v) { return ctattn::math::exp(v); });
}
template <class T>
void std_exp_softmax(benchmark::State& state) {
  run<T>(state, T(-20), T(0), [](T v) { return std::exp(v); });
}
template <class T>
void ctattn_exp_wide(benchmark::State& state) {
  run<T>(state, T(-80), T(80), [](T v) { return ctattn::math::exp(v); });
}
template <class T>
void std_exp_wide(benchmark::State& state) {
  run<T>(state, T(-80), T(80), [](T v) { return std::exp(v); });
}

}  // namespace

BENCHMARK(ctattn_exp_softmax<float>);
BENCHMARK(std_exp_softmax<float>);
BENCHMARK(ctattn_exp_softmax<double>);
BENCHMARK(std_exp_softmax<double>);
BENCHMARK(ctattn_exp_wide<float>);
BENCHMARK(std_exp_wide<float>);
BENCHMARK(ctattn_exp_wide<double>);
BENCHMARK(std_exp_wide<double>);

BENCHMARK_MAIN();
