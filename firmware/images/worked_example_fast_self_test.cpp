// Firmware image, on a board with a SIMD backend: the fast check's bound must not be vacuous. The run-time input
// differs from the compiled-in one by 2^-7 of its first element (bit 16 flipped); the image passes (exit code 0)
// only if the comparison within 2^-17 (1 + |exact|) reports elements outside the bound.
#include "../models/worked_example.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/image_storage.hpp"

using model = ctattn_firmware::models::worked_example;

CTATTN_FIRMWARE_IMAGE_STORAGE(model)

int main() {
  using namespace ctattn_firmware;
  const check_result result = run_check_into<model, input_mode::perturbed_coarse, comparison::within_bound>(
      ctattn_input, ctattn_weights, ctattn_output, ctattn_workspace, 1);
  const bool noticed = result.mismatches != 0;
  (report_line{} << (noticed ? "PASS: the bound caught the input changed by 2^-7"
                             : "FAIL: an input changed by 2^-7 stayed within the bound"))
      .end();
  return noticed ? 0 : 1;
}
