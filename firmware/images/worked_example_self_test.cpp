// Firmware image: the worked example's check must notice a one-bit change. The run-time input differs from the
// compiled-in one in the lowest bit of its first element; the image passes (exit code 0) only if the bit-for-bit
// comparison of the attention output reports a mismatch.
#include "../models/worked_example.hpp"
#include "../runtime/check_model.hpp"

using model = ctattn_firmware::models::worked_example;

extern "C" {
extern const model::parameters ctattn_weights;
extern const model::input ctattn_input;
constinit const model::parameters ctattn_weights = model::example_parameters();
constinit const model::input ctattn_input = model::example_input();
model::workspace ctattn_workspace;
model::output ctattn_output;
}

int main() {
  using namespace ctattn_firmware;
  const check_result result =
      run_check_into<model, input_mode::perturbed>(ctattn_input, ctattn_weights, ctattn_output, ctattn_workspace, 1);
  const bool noticed = result.mismatches != 0;
  (report_line{} << (noticed ? "PASS: the comparison caught the flipped input bit"
                             : "FAIL: a flipped input bit went unnoticed"))
      .end();
  return noticed ? 0 : 1;
}
