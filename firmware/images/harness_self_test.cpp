// Firmware image: the check must notice a one-bit change. The run-time inputs differ from the compiled-in
// ones in the lowest bit of their first element; the image passes (exit code 0) only if the bit-for-bit
// comparison reports a mismatch.
#include "../models/matrix_chain.hpp"
#include "../runtime/check_model.hpp"

int main() {
  using namespace ctattn_firmware;
  const check_result result = run_check<models::matrix_chain, input_mode::perturbed>(1);
  const bool noticed = result.mismatches != 0;
  (report_line{} << (noticed ? "PASS: the comparison caught the flipped input bit"
                             : "FAIL: a flipped input bit went unnoticed"))
      .end();
  return noticed ? 0 : 1;
}
