// Firmware image: the int8 check must notice a one-bit change. The run-time input differs from the compiled-in one in
// the lowest bit of its first byte (the int8 x(0, 0), one step of its quantization); the image passes (exit code 0)
// only if the comparison of the int8 context reports a mismatch.
#include <cstdint>

#include "../models/worked_example_int8.hpp"
#include "../runtime/check_model.hpp"

namespace {
using model = ctattn_firmware::models::worked_example_int8;

// The flip changes the compiler's own result too, so a run that reports no mismatch is the comparison's fault.
constexpr bool flip_changes_context() noexcept {
  model::inputs flipped = model::example();
  flipped.x.elements[0][0] = static_cast<std::int8_t>(flipped.x.elements[0][0] ^ 1);
  return !(model::evaluate(flipped).context == model::evaluate(model::example()).context);
}
static_assert(flip_changes_context(), "the self-test's one-bit change of x(0, 0) must change the int8 context");
}  // namespace

int main() {
  using namespace ctattn_firmware;
  const check_result result = run_check<model, input_mode::perturbed>(1);
  const bool noticed = result.mismatches != 0;
  (report_line{} << (noticed ? "PASS: the comparison caught the flipped input bit"
                             : "FAIL: a flipped input bit went unnoticed"))
      .end();
  return noticed ? 0 : 1;
}
