// What the speed benchmarks share (bench_attention_speed.cpp, bench_peer_speed.cpp): operands filled from a seed,
// times and figures as the tables print them, Google Benchmark started with the project's defaults, a kernel
// registered, a case's instance, the median times it reports, and the core's FP32 FMA peak measured in the same run.
#ifndef CTATTN_BENCHMARKS_BENCH_COMMON_HPP
#define CTATTN_BENCHMARKS_BENCH_COMMON_HPP

#include <benchmark/benchmark.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctattn_bench {

// data[0, count) uniform in [-scale, scale] from the seed, in order: every implementation fills its own copy of an
// operand from the operand's seed, so all compute on the same numbers.
inline void fill(float* data, std::size_t count, std::uint32_t seed, float scale) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (std::size_t i = 0; i < count; ++i) data[i] = uniform(engine);
}

// A time in ns, µs or ms; "-" for NaN (no figure).
inline std::string format_time(double seconds) {
  char text[32];
  if (std::isnan(seconds)) return "-";
  if (seconds < 1e-6) {
    std::snprintf(text, sizeof text, "%.0f ns", seconds * 1e9);
  } else if (seconds < 1e-3) {
    std::snprintf(text, sizeof text, "%.2f µs", seconds * 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  }
  return text;
}

// A figure by a printf format; "-" for NaN or infinity (no figure).
inline std::string format_number(const char* format, double value) {
  if (std::isnan(value) || std::isinf(value)) return "-";
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// Google Benchmark started with the defaults the command line can override: medians of 11 repetitions of at least
// 0.2 s each, aggregates only. (A plain number of seconds for --benchmark_min_time is what Debian 12's 1.7.1
// parses.) Sets `repetitions` to the count in force; false when an argument is not Google Benchmark's.
inline bool start_benchmarks(int argc, char** argv, std::string& repetitions) {
  std::vector<char*> args(argv, argv + argc);
  const auto given = [&](std::string_view flag) {
    return std::any_of(args.begin() + 1, args.end(),
                       [flag](const char* arg) { return std::string_view(arg).substr(0, flag.size()) == flag; });
  };
  static char repetitions_flag[] = "--benchmark_repetitions=11";
  static char aggregates_flag[] = "--benchmark_report_aggregates_only=true";
  static char min_time_flag[] = "--benchmark_min_time=0.2";
  if (!given("--benchmark_repetitions")) args.push_back(repetitions_flag);
  if (!given("--benchmark_report_aggregates_only") && !given("--benchmark_display_aggregates_only")) {
    args.push_back(aggregates_flag);
  }
  if (!given("--benchmark_min_time")) args.push_back(min_time_flag);
  // Rationale: built in a string of its own and moved: assigning a literal to the caller's string trips GCC 12's
  // -Wrestrict false positive inside std::string.
  std::string count_text = "1";
  for (const char* arg : args) {
    const std::string_view text(arg);
    constexpr std::string_view prefix = "--benchmark_repetitions=";
    if (text.substr(0, prefix.size()) == prefix) count_text = std::string(text.substr(prefix.size()));
  }
  repetitions = std::move(count_text);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return false;
#ifndef NDEBUG
  std::printf("warning: built without NDEBUG (not a Release build): Eigen's and ctattn's run-time checks are on\n");
#endif
  return true;
}

// Registers `kernel` as a benchmark of real time in µs with its GFLOP/s (`flops` per call) as a counter; the
// outputs count as read, and the inputs as changed, after every call.
template <typename Kernel>
inline void register_kernel(const std::string& name, double flops, Kernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(),
                               [flops, kernel](benchmark::State& state) mutable {
                                 for (auto _ : state) {
                                   kernel();
                                   // The outputs count as read, and the inputs as changed, every iteration.
                                   benchmark::ClobberMemory();
                                 }
                                 state.counters["GFLOPs"] =
                                     benchmark::Counter(flops * 1e-9 * static_cast<double>(state.iterations()),
                                                        benchmark::Counter::kIsRate);
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

// A case's one instance in static storage (the large cases hold several MiB of weights: never on a stack),
// prepared on first use.
template <typename Case>
Case& instance() {
  static Case storage;
  static const bool prepared = (storage.prepare(), true);
  (void)prepared;
  return storage;
}

// Google Benchmark's console output, keeping each benchmark's median real time per call (its only run's with
// --benchmark_repetitions=1) for the tables.
class median_times : public benchmark::ConsoleReporter {
 public:
  median_times() : benchmark::ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool is_median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      const bool is_single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
      if (is_median || is_single) {
        seconds_[run.run_name.function_name] =
            run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  // Seconds per call, NaN for a benchmark that did not run (left out by --benchmark_filter).
  double operator()(const std::string& name) const {
    const auto found = seconds_.find(name);
    return found == seconds_.end() ? std::numeric_limits<double>::quiet_NaN() : found->second;
  }

 private:
  std::map<std::string, double> seconds_;
};

// ---------------------------------------------------------------------------------------------------------------
// The machine: its vector, and its FP32 FMA peak

#if defined(__AVX512F__)
inline constexpr std::size_t vector_bytes = 64;
inline constexpr const char* vector_name = "512-bit AVX-512";
#elif defined(__AVX__)
inline constexpr std::size_t vector_bytes = 32;
inline constexpr const char* vector_name = "256-bit AVX";
#else
inline constexpr std::size_t vector_bytes = 16;
inline constexpr const char* vector_name = "128-bit";
#endif
using float_vector = float __attribute__((vector_size(vector_bytes)));
inline constexpr std::size_t vector_lanes = vector_bytes / sizeof(float);

// Independent accumulator chains: the FMA latency (4 to 5 cycles) times the FMA pipes (2) must be covered. With
// AVX-512's 32 registers there is room for 24, elsewhere (16 registers) for 12 beside the two operands.
inline constexpr std::size_t fma_chains = vector_bytes == 64 ? 24 : 12;
inline constexpr std::int64_t fma_rounds_per_iteration = 1024;

// `rounds` times acc[j] = acc[j] * a + b on every chain. With a just below 1 and b small every value stays normal
// and bounded. The chains are a fold over an index pack, not a loop, so that each lives in a register (as a loop,
// GCC interchanges it with the rounds and keeps the chains in memory). -ffp-contract=off (ctattn's guarantee)
// forbids the compiler to fuse a*b+c, so on x86 the FMA is an intrinsic; elsewhere this one function allows
// contraction (AArch64's fmla, say), and on an x86 target without FMA the figure is the multiply-then-add rate.
#if defined(__x86_64__) && (defined(__AVX512F__) || defined(__FMA__))
template <std::size_t... J>
[[gnu::noinline]] void fma_rounds(float_vector (&acc)[fma_chains], float_vector a, float_vector b, std::int64_t rounds,
                                  std::index_sequence<J...>) {
  float_vector local[] = {acc[J]...};
  for (std::int64_t r = 0; r < rounds; ++r) {
#if defined(__AVX512F__)
    ((local[J] = _mm512_fmadd_ps(local[J], a, b)), ...);
#else
    ((local[J] = _mm256_fmadd_ps(local[J], a, b)), ...);
#endif
  }
  ((acc[J] = local[J]), ...);
}
#else
template <std::size_t... J>
#if defined(__clang__)
[[gnu::noinline]]
#else
[[gnu::noinline, gnu::optimize("fp-contract=fast")]]
#endif
void fma_rounds(float_vector (&acc)[fma_chains], float_vector a, float_vector b, std::int64_t rounds,
                std::index_sequence<J...>) {
#if defined(__clang__)
#pragma clang fp contract(fast)
#endif
  float_vector local[] = {acc[J]...};
  for (std::int64_t r = 0; r < rounds; ++r) ((local[J] = local[J] * a + b), ...);
  ((acc[J] = local[J]), ...);
}
#endif

inline constexpr double fma_flops_per_iteration =
    2.0 * static_cast<double>(vector_lanes * fma_chains) * static_cast<double>(fma_rounds_per_iteration);

inline void fma_peak(benchmark::State& state) {
  float_vector acc[fma_chains];
  for (std::size_t j = 0; j < fma_chains; ++j) {
    for (std::size_t lane = 0; lane < vector_lanes; ++lane) acc[j][lane] = static_cast<float>(j + lane) * 0.01f;
  }
  float_vector a, b;
  for (std::size_t lane = 0; lane < vector_lanes; ++lane) {
    a[lane] = 0.999f;
    b[lane] = 0.001f;
  }
  // Unknown to the compiler, so that it cannot fold the chains.
  benchmark::DoNotOptimize(a);
  benchmark::DoNotOptimize(b);
  for (auto _ : state) fma_rounds(acc, a, b, fma_rounds_per_iteration, std::make_index_sequence<fma_chains>{});
  float_vector total = acc[0];
  for (std::size_t j = 1; j < fma_chains; ++j) total += acc[j];
  benchmark::DoNotOptimize(total);
  state.counters["GFLOPs"] = benchmark::Counter(
      fma_flops_per_iteration * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace ctattn_bench

#endif  // CTATTN_BENCHMARKS_BENCH_COMMON_HPP
