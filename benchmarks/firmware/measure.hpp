/// \file
/// What the firmware benchmarks (int8_kernels.cpp, kwt_cmsis_nn.cpp) share: instructions per call of a piece
/// of code (firmware/runtime/check_model.hpp's calibrated SysTick; exact under `qemu-system-arm -icount shift=0`),
/// and a ratio printed with two decimals in integers only (the M0 and M3 have no FPU).
#pragma once

#include <cstdint>

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

}  // namespace ctattn_benchmark
