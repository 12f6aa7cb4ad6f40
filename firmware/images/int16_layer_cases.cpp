// Firmware image: the int16 tier's ctattn layers on this board: the cases of tests/support/int16_cases.hpp's
// `layer_cases` marked `on_the_boards`: int16 LayerNorm, RMSNorm and activations against their Python
// transcription and float64, and 16x8 attention against TFLite's operators composed in Python
// (tests/fixtures/quantized/int16.hpp). Exit code 0 when every result matches.
#include "../runtime/check_model.hpp"
#include "support/int16_cases.hpp"

namespace {
// Each operand copied through a pointer the optimizer cannot see through (opaque), so that the kernels run as
// compiled code on the target rather than being folded by the compiler.
constexpr auto at_run_time = [](const auto& value) { return *ctattn_firmware::opaque(&value); };
}  // namespace

int main() {
  using namespace ctattn_firmware;
  (report_line{} << "ctattn int16 layer cases on " << board_name << ", int8 backend " << ctattn::int8_backend_name)
      .end();
  std::uint32_t failed = 0;
  ctattn_test::for_each_case<ctattn_test::on_the_boards, ctattn_test::int16_cases::layer_cases>(
      at_run_time, [&](const char* name, std::size_t mismatches) {
        (report_line{} << "  " << name << " mismatches: " << static_cast<std::uint32_t>(mismatches)).end();
        failed += mismatches == 0 ? 0u : 1u;
      });
  return failed == 0 ? 0 : 1;
}
