// Firmware image: the int8 kernels of this board's backend (the Cortex-M DSP tiles, Helium's vmladava and vector
// requantization, or the scalar loops) against plain loops, over every tail of their tiles
// (tests/support/int8_kernel_cases.hpp): int8_dot_rows for every length 1 to 70 and extreme zero points, and
// int8_fully_connected and the products over shapes and multipliers that reach every branch of the requantization,
// the int8 softmax of rows of every length to 40 and int8 LayerNorm against their constant evaluation, int8 ADD
// against TFLite's steps, and the activations' table lookup. Exit code 0 when
// every result matches.
#include "../runtime/check_model.hpp"
#include "support/int8_kernel_cases.hpp"

namespace {
// Each operand copied through a pointer the optimizer cannot see through (opaque), so that the kernels run as
// compiled code on the target rather than being folded by the compiler.
constexpr auto at_run_time = [](const auto& value) { return *ctattn_firmware::opaque(&value); };
}  // namespace

int main() {
  using namespace ctattn_firmware;
  (report_line{} << "ctattn int8 kernel cases on " << board_name << ", int8 backend " << ctattn::int8_backend_name)
      .end();
  const auto dot = static_cast<std::uint32_t>(ctattn_test::int8_kernel_cases::all_mismatches(at_run_time));
  const auto fc = static_cast<std::uint32_t>(ctattn_test::int8_kernel_cases::all_fully_connected_mismatches(at_run_time));
  const auto softmax = static_cast<std::uint32_t>(ctattn_test::int8_kernel_cases::softmax_mismatches(at_run_time));
  const auto norm = static_cast<std::uint32_t>(ctattn_test::int8_kernel_cases::layer_norm_mismatches(at_run_time) +
                                               ctattn_test::int8_kernel_cases::arithmetic_mismatches(at_run_time));
  const auto add = static_cast<std::uint32_t>(ctattn_test::int8_kernel_cases::add_mismatches(at_run_time) +
                                              ctattn_test::int8_kernel_cases::lookup_mismatches(at_run_time));
  (report_line{} << "  int8_dot_rows mismatches: " << dot << "; products: " << fc << "; softmax: " << softmax
                 << "; layer norm: " << norm << "; add and lookup: " << add)
      .end();
  return dot == 0 && fc == 0 && softmax == 0 && norm == 0 && add == 0 ? 0 : 1;
}
