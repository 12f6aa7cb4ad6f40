// Firmware image: the int8 kernels of this board's backend (the Cortex-M DSP tiles, Helium's vmladava and vector
// requantization, or the scalar loops) against plain loops, over every tail of their tiles: the cases of
// tests/support/int8_kernel_cases.hpp marked `on_the_boards` (int8_dot_rows for every length 1 to 70 and extreme
// zero points, int8_fully_connected and the products over shapes and multipliers that reach every branch of the
// requantization, the int8 softmax of rows of every length to 40 and int8 LayerNorm against their constant
// evaluation, int8 ADD against TFLite's steps, and the activations' table lookup). Exit code 0 when every result
// matches. It also checks, when it compiles, that this board's backend rows declare their optional operations
// truthfully (tests/support/backend_ops_check.hpp).
#include "support/int8_kernel_cases.hpp"
#include "../runtime/check_model.hpp"
#include "support/backend_ops_check.hpp"

static_assert(ctattn_test::backend_ops::every_row_declares_its_operations());

namespace {
// Each operand copied through a pointer the optimizer cannot see through (opaque), so that the kernels run as
// compiled code on the target rather than being folded by the compiler.
constexpr auto at_run_time = [](const auto& value) { return *ctattn_firmware::opaque(&value); };
}  // namespace

int main() {
  using namespace ctattn_firmware;
  (report_line{} << "ctattn int8 kernel cases on " << board_name << ", int8 backend " << ctattn::int8_backend_name)
      .end();
  std::uint32_t failed = 0;
  const auto report = [&](const char* name, std::size_t mismatches) {
    (report_line{} << "  " << name << " mismatches: " << static_cast<std::uint32_t>(mismatches)).end();
    failed += mismatches == 0 ? 0u : 1u;
  };
  ctattn_test::for_each_case<ctattn_test::on_the_boards, ctattn_test::int8_kernel_cases::every_case>(at_run_time,
                                                                                                     report);
  return failed == 0 ? 0 : 1;
}
