// Firmware image: the int16 tier (TFLite's 16x8 mode) on this board: the cases of tests/support/int16_cases.hpp
// marked `on_the_boards`: quantization, conversions, products, ADD, MUL and softmax against TensorFlow Lite Micro's
// arithmetic (tests/fixtures/quantized/int16.hpp), and the board's int16 kernels (the Cortex-M DSP's products, or
// the loops) against sums taken term by term over every tail. Exit code 0 when
// every result matches.
#include "support/int16_cases.hpp"
#include "../runtime/check_model.hpp"

namespace {
// Each operand copied through a pointer the optimizer cannot see through (opaque), so that the kernels run as
// compiled code on the target rather than being folded by the compiler.
constexpr auto at_run_time = [](const auto& value) { return *ctattn_firmware::opaque(&value); };
}  // namespace

int main() {
  using namespace ctattn_firmware;
  (report_line{} << "ctattn int16 cases on " << board_name << ", int8 backend " << ctattn::int8_backend_name).end();
  std::uint32_t failed = 0;
  ctattn_test::for_each_case<ctattn_test::on_the_boards, ctattn_test::int16_cases::every_case>(
      at_run_time, [&](const char* name, std::size_t mismatches) {
        (report_line{} << "  " << name << " mismatches: " << static_cast<std::uint32_t>(mismatches)).end();
        failed += mismatches == 0 ? 0u : 1u;
      });
  return failed == 0 ? 0 : 1;
}
