/// \file
/// What the firmware benchmarks (int8_kernels.cpp, int16_kernels.cpp, kwt_cmsis_nn.cpp) share: instructions per call
/// of a piece of code (firmware/runtime/check_model.hpp's calibrated SysTick; exact under `qemu-system-arm -icount
/// shift=0`), a ratio printed with two decimals in integers only (the M0 and M3 have no FPU), and the kernel
/// benchmarks' steps: a workload's output checked bit for bit against the compiler's, then timed, on each side, and
/// its result lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifndef CTATTN_BENCHMARK_CMSIS_NN
#define CTATTN_BENCHMARK_CMSIS_NN 0  // benchmarks/firmware/CMakeLists.txt sets it with CTATTN_CMSIS_NN_DIR
#endif
#if CTATTN_BENCHMARK_CMSIS_NN
#include <arm_nnfunctions.h>
#endif

#include "../../firmware/runtime/check_model.hpp"
#include "../../firmware/runtime/report.hpp"

namespace ctattn_benchmark {

/// Instructions per call of `run`, over `timed_runs` calls.
///
/// Example: `const std::uint32_t n = ctattn_benchmark::instructions_per_call([&] { layer(x, y); }, 8);`
template <typename Run>
std::uint32_t instructions_per_call(Run&& run, std::uint32_t timed_runs) noexcept {
  ctattn_firmware::check_result timing{};
  ctattn_firmware::detail::time_inference(timing, run, timed_runs);
  return static_cast<std::uint32_t>(timing.instructions);
}

/// n / d with two decimals, rounded to nearest, in integers only: "3.14"; "-" when d is 0.
///
/// Example: `ctattn_benchmark::print_ratio(line, 314, 100);   // 3.14`
inline void print_ratio(ctattn_firmware::report_line& line, std::uint32_t n, std::uint32_t d) noexcept {
  if (d == 0) {
    line << "-";
    return;
  }
  const std::uint64_t hundredths = (std::uint64_t{n} * 100u + d / 2u) / d;
  const auto fraction = static_cast<std::uint32_t>(hundredths % 100u);
  line << static_cast<std::uint32_t>(hundredths / 100u) << (fraction < 10u ? ".0" : ".") << fraction;
}

/// The calls each measurement times (the kernel benchmarks').
inline constexpr std::uint32_t timed_runs = 8;

/// Elements of `got` whose bits differ from `want`; prints where the first one is.
template <typename M>
std::uint32_t count_mismatches(const char* who, const M& got, const M& want) noexcept {
  using value = typename M::value_type;
  constexpr unsigned digits = 2 * sizeof(value);
  const auto bits = [](value v) { return static_cast<std::uint32_t>(static_cast<std::make_unsigned_t<value>>(v)); };
  std::uint32_t mismatches = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (got.elements[i][j] != want.elements[i][j]) {
        if (mismatches == 0) {
          (ctattn_firmware::report_line{} << "    MISMATCH " << who << " first at (" << static_cast<std::uint32_t>(i)
                                          << ", " << static_cast<std::uint32_t>(j)
                                          << "): " << ctattn_firmware::hex{bits(got.elements[i][j]), digits}
                                          << ", expected " << ctattn_firmware::hex{bits(want.elements[i][j]), digits})
              .end();
        }
        ++mismatches;
      }
    }
  }
  return mismatches;
}

/// A pattern no kernel writes by chance everywhere, so that an output left unwritten shows as a mismatch.
template <typename M>
void scribble(M& m) noexcept {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j)
      m.elements[i][j] = static_cast<typename M::value_type>(0x5A ^ (i * 7 + j));
  }
}

/// What one workload measured.
struct measured {
  std::uint32_t ctattn = 0;
  std::uint32_t cmsis_nn = 0;  // 0: not built with CMSIS-NN
  bool pass = true;
};

/// Prints the workload's lines: the human one and the `result:` one the script reads.
inline void print_result(const char* name, const char* unit, std::uint32_t work, const measured& m) noexcept {
  ctattn_firmware::report_line line;
  line << "  " << name << ": " << work << " " << unit << "; ctattn " << m.ctattn << " instructions (";
  print_ratio(line, m.ctattn, work);
  line << " per " << (unit[0] == 'M' ? "MAC" : "element") << ")";
  if (m.cmsis_nn != 0) {
    line << "; CMSIS-NN " << m.cmsis_nn << " (";
    print_ratio(line, m.cmsis_nn, work);
    line << "); ctattn / CMSIS-NN ";
    print_ratio(line, m.ctattn, m.cmsis_nn);
  }
  line.end();
  ctattn_firmware::report_line result;
  result << "result: workload=" << name << " " << (unit[0] == 'M' ? "macs=" : "elements=") << work
         << " ctattn=" << m.ctattn << " cmsis_nn=";
  if (m.cmsis_nn != 0) {
    result << m.cmsis_nn;
  } else {
    result << "-";
  }
  result << " pass=" << (m.pass ? "yes" : "no");
  result.end();
}

/// ctattn's side of a workload: `run(out)` once on a scribbled output, its bits against the compiler's `expected`,
/// then its instructions per call.
template <typename Out, typename Run>
void measure_ctattn(measured& m, Out& out, const Out& expected, Run run) noexcept {
  scribble(out);
  run(out);
  m.pass = count_mismatches("ctattn vs compile time", out, expected) == 0 && m.pass;
  m.ctattn = instructions_per_call([&] { run(out); }, timed_runs);
}

#if CTATTN_BENCHMARK_CMSIS_NN
/// CMSIS-NN's side: `run()` once on a scribbled output (its status must be success, its bits ctattn's), then its
/// instructions per call.
template <typename Out, typename Run>
void measure_cmsis_nn(measured& m, const char* function, Out& out, const Out& expected, Run run) noexcept {
  scribble(out);
  if (run() != ARM_CMSIS_NN_SUCCESS) {
    (ctattn_firmware::report_line{} << "    " << function << " returned an error").end();
    m.pass = false;
  }
  m.pass = count_mismatches("CMSIS-NN vs ctattn", out, expected) == 0 && m.pass;
  m.cmsis_nn = instructions_per_call(run, timed_runs);
}
#endif

}  // namespace ctattn_benchmark
