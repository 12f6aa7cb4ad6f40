// Firmware image: the small llama of firmware/models/small_llama.hpp (one block of the tiny llama's widths) in int8
// on every board, everything made by the compiler: its ranges recorded, its weights quantized (flash) and a whole
// generation decoded in constant expressions (the 4-token prompt through the int8 key/value caches, 6 tokens
// generated greedily). The target decodes the same generation with its backend's kernels (the one-row products,
// the fixed-width scores, one query's values, the rotation, the RMSNorm rows, each step's softmax) and compares
// every step's 64 int8 logits and the generated ids with the compiler's, bit for bit; the decode footprint's RAM
// (caches included) is static_assert-ed and its stack figure bounds the painted stack. Exit code 0 when everything
// matches.
#include <cstddef>
#include <cstdint>

#include "../models/small_llama.hpp"
#include "../runtime/board.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/decode_report.hpp"
#include "../runtime/footprint_symbols.hpp"
#include "../runtime/report.hpp"

namespace small_llama = ctattn_firmware::models::small_llama;

namespace ctattn_firmware {

/// The int8 weights, quantized by the compiler (flash).
constinit const small_llama::int8_model small_llama_int8_weights = small_llama::make_int8_model();

/// Decoding's RAM: the int8 caches (workspace), the logits row (output) and one step's stack.
struct small_llama_int8_decoding {
  static constexpr ctattn::footprint footprint = small_llama::int8_model::decode_footprint<small_llama::capacity>();
};
// 16 cached tokens of 32 int8 keys and values: 1 KB; with a step's stack the decoder fits 4 KB of RAM.
static_assert(small_llama_int8_decoding::footprint.ram_bytes() <= 4 * 1024,
              "the small llama's int8 decoding must fit in 4 KB of RAM: caches, logits row and one step's stack");
static_assert(small_llama_int8_decoding::footprint.workspace_bytes == sizeof(small_llama::int8_state));

// Rationale: the footprint counts the rows a step keeps on the stack, not the call frames (saved registers, spills,
// the generation loop's frames); 1 KB is left for them, as the tiny llama's images do.
inline constexpr std::size_t frame_allowance = 1024;

small_llama::int8_state ctattn_workspace{};
small_llama::int8_logits ctattn_output{};

namespace {
std::uint16_t computed_tokens[small_llama::generated]{};
std::int8_t computed_logits[small_llama::steps][small_llama::vocabulary]{};
}  // namespace

/// The int8 generation, out of line: the run-time path the build's checks follow (check_runtime_path.cmake: integer
/// multiplies and no floating point).
[[gnu::noinline]] std::size_t evaluate_at_run_time() noexcept {
  return small_llama::generate(*opaque(&small_llama_int8_weights), ctattn_workspace, ctattn_output, computed_tokens,
                               [](std::size_t step, const small_llama::int8_logits& row) {
                                 for (std::size_t j = 0; j < small_llama::vocabulary; ++j)
                                   computed_logits[step][j] = row.elements[0][j];
                               });
}

}  // namespace ctattn_firmware

int main() {
  using namespace ctattn_firmware;
  publish_footprint<small_llama_int8_decoding>();
  (report_line{} << "ctattn firmware check on " << board_name).end();
  (report_line{} << "model: small llama in int8 (1 block of the tiny llama's widths: dim 64, 8 heads over 4, "
                    "hidden 172; vocabulary 64)")
      .end();
  (report_line{} << "  expected outputs: the compiler's (firmware/models/small_llama.hpp)").end();
  constexpr auto fp = small_llama_int8_decoding::footprint;
  print_decode_footprint(fp);
  std::size_t made = 0;
  const check_result result = timed_generation(made, [] { return evaluate_at_run_time(); });
  print_ids(computed_tokens, made);
  std::uint32_t mismatches = int8_generation_mismatches(made, computed_tokens, small_llama::expected.tokens,
                                                        computed_logits, small_llama::expected.logits);
  mismatches += report_generation(result, fp, frame_allowance, small_llama::steps);
  (report_line{} << (mismatches == 0 ? "PASS: the int8 ids and logits of every step equal the compiler's"
                                     : "FAIL: the int8 generation differs from the compiler's"))
      .end();
  return mismatches == 0 ? 0 : 1;
}
