// What the speed benchmarks share (bench_attention_speed.cpp, bench_peer_speed.cpp): operands filled from a seed,
// times and figures as the tables print them, and Google Benchmark started with the project's defaults.
#ifndef CTATTN_BENCHMARKS_BENCH_COMMON_HPP
#define CTATTN_BENCHMARKS_BENCH_COMMON_HPP

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
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

}  // namespace ctattn_bench

#endif  // CTATTN_BENCHMARKS_BENCH_COMMON_HPP
