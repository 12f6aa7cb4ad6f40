#ifndef CTATTN_FIRMWARE_RUNTIME_DECODE_REPORT_HPP
#define CTATTN_FIRMWARE_RUNTIME_DECODE_REPORT_HPP

/// \file
/// What the decoding images (firmware/images/tiny_llama*.cpp, small_llama_int8.cpp) measure, compare and report: a
/// generation timed with its stack painted, its ids and int8 logits against the expected ones, its painted stack
/// against the footprint's stack figure plus an allowance for call frames, and its instructions in all and per step.
///
/// | function                                     | does                                                     |
/// |----------------------------------------------|----------------------------------------------------------|
/// | `print_decode_footprint(fp)`                 | prints the footprint's weights, caches, logits, stack and RAM |
/// | `timed_generation(made, generate)`           | runs `made = generate()` once, timed, its stack painted  |
/// | `print_ids(ids, n)`                          | prints the generated ids                                 |
/// | `int8_generation_mismatches(...)`            | differing ids and int8 logits, the first 4 printed       |
/// | `report_generation(r, fp, allowance, steps)` | stack and instructions; 1 when the stack exceeds fp's stack + allowance, else 0 |
///
/// Example: `mismatches += report_generation(timed_generation(made, run), fp, 2048, 23);`

#include <cstddef>
#include <cstdint>

#include <ctattn/detail/footprint_type.hpp>

#include "board.hpp"
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

/// One run of `generate` (which returns how many ids it generated, into `made`), timed and with the stack painted
/// below the caller's frame: its instructions and painted stack (the timer's frame included, tens of bytes).
template <typename Generate>
[[nodiscard]] check_result timed_generation(std::size_t& made, Generate&& generate) noexcept {
  check_result result{};
  const std::uintptr_t top = stack::pointer();
  stack::paint();
  detail::time_inference(result, [&] { made = generate(); }, 1);
  result.stack_bytes = stack::used_below(top);
  return result;
}

inline void print_ids(const std::uint16_t* ids, std::size_t n) noexcept {
  report_line line{};
  line << "  generated:";
  for (std::size_t t = 0; t < n; ++t) line << " " << static_cast<std::uint32_t>(ids[t]);
  line.end();
}

/// The differences of an int8 generation from the expected one: `made` against `generated` (1 when it stopped
/// early), each id of `ids` against `expected_ids`, each of `steps` x `vocabulary` int8 logits (rows of `logits`
/// against `expected_logits`); the first 4 are printed.
template <std::size_t Generated, std::size_t Steps, std::size_t Vocabulary>
std::uint32_t int8_generation_mismatches(std::size_t made, const std::uint16_t (&ids)[Generated],
                                         const std::uint16_t (&expected_ids)[Generated],
                                         const std::int8_t (&logits)[Steps][Vocabulary],
                                         const std::int8_t (&expected_logits)[Steps][Vocabulary]) noexcept {
  std::uint32_t mismatches = 0;
  if (made != Generated) {
    (report_line{} << "  MISMATCH: the generation stopped after " << static_cast<std::uint32_t>(made) << " ids").end();
    ++mismatches;
  }
  for (std::size_t t = 0; t < made && t < Generated; ++t) {
    if (ids[t] != expected_ids[t] && ++mismatches <= 4) {
      (report_line{} << "  MISMATCH generated id " << static_cast<std::uint32_t>(t) << ": "
                     << static_cast<std::uint32_t>(ids[t]) << ", expected "
                     << static_cast<std::uint32_t>(expected_ids[t]))
          .end();
    }
  }
  for (std::size_t s = 0; s < Steps; ++s) {
    for (std::size_t j = 0; j < Vocabulary; ++j) {
      if (logits[s][j] != expected_logits[s][j] && ++mismatches <= 4) {
        (report_line{} << "  MISMATCH step " << static_cast<std::uint32_t>(s) << " logit "
                       << static_cast<std::uint32_t>(j))
            .end();
      }
    }
  }
  return mismatches;
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
