#ifndef CTATTN_FIRMWARE_RUNTIME_DECODE_REPORT_HPP
#define CTATTN_FIRMWARE_RUNTIME_DECODE_REPORT_HPP

/// \file
/// What the decoding images (firmware/images/tiny_llama*.cpp) report and hold to their decode footprint: a
/// generation's ids, its painted stack against the footprint's stack figure plus an allowance for call frames, and
/// its instructions in all and per step.
///
/// | function                                   | prints                                                   |
/// |--------------------------------------------|----------------------------------------------------------|
/// | `print_decode_footprint(fp)`               | the footprint's weights, caches, logits, stack and RAM   |
/// | `print_ids(ids, n)`                        | the generated ids                                        |
/// | `report_generation(r, fp, allowance, steps)` | stack and instructions; 1 when the stack exceeds fp's stack + allowance, else 0 |
///
/// Example: `mismatches += report_generation(result, fp, 2048, 23);`

#include <cstddef>
#include <cstdint>

#include <ctattn/detail/footprint_type.hpp>

#include "check_model.hpp"
#include "report.hpp"

namespace ctattn_firmware {

inline void print_decode_footprint(const ctattn::footprint& fp) noexcept {
  (report_line{} << "  decode footprint: weights " << static_cast<std::uint32_t>(fp.weight_bytes)
                 << " B (flash); caches " << static_cast<std::uint32_t>(fp.workspace_bytes) << " B, logits "
                 << static_cast<std::uint32_t>(fp.output_bytes) << " B, stack "
                 << static_cast<std::uint32_t>(fp.stack_bytes) << " B: RAM "
                 << static_cast<std::uint32_t>(fp.ram_bytes()) << " B")
      .end();
}

inline void print_ids(const std::uint16_t* ids, std::size_t n) noexcept {
  report_line line{};
  line << "  generated:";
  for (std::size_t t = 0; t < n; ++t) line << " " << static_cast<std::uint32_t>(ids[t]);
  line.end();
}

/// A generation's painted stack and instructions (`result`, from `detail::time_inference` and `stack::used_below`)
/// against footprint `fp`: 1 (a mismatch) when the stack exceeds fp.stack_bytes + `allowance`, else 0.
inline std::uint32_t report_generation(const check_result& result, const ctattn::footprint& fp, std::size_t allowance,
                                       std::size_t steps) noexcept {
  std::uint32_t mismatches = 0;
  (report_line{} << "  stack of one generation: " << result.stack_bytes << " bytes (painted), footprint "
                 << static_cast<std::uint32_t>(fp.stack_bytes) << " bytes")
      .end();
  if (result.stack_bytes > fp.stack_bytes + allowance) {
    (report_line{} << "  MISMATCH: the painted stack exceeds the decode footprint's by more than "
                   << static_cast<std::uint32_t>(allowance) << " bytes of call frames")
        .end();
    mismatches = 1;
  }
  (report_line{} << "  instructions per generation: " << result.instructions << " ("
                 << static_cast<std::uint32_t>(steps) << " steps)")
      .end();
  (report_line{} << "  instructions per step: "
                 << static_cast<std::uint32_t>((result.instructions + steps / 2) / steps))
      .end();
  return mismatches;
}

}  // namespace ctattn_firmware

#endif  // CTATTN_FIRMWARE_RUNTIME_DECODE_REPORT_HPP
