// Firmware image: the worked example's check must notice a one-bit change. The run-time input differs from the
// compiled-in one in the lowest bit of its first element; the image passes (exit code 0) only if the bit-for-bit
// comparison of the attention output reports a mismatch.
#include "../models/worked_example.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/image_storage.hpp"

using model = ctattn_firmware::models::worked_example;

CTATTN_FIRMWARE_IMAGE_STORAGE(model)

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
