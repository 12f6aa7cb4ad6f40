// Firmware image, on a board with a SIMD backend (m55-helium): the worked example (one head, 6 x 16, d_k = 24,
// d_v = 28) evaluated on the target with the backend's fast arithmetic, ctattn's default there, and compared with
// the compiler's exact evaluation embedded in the image: every element within 2^-17 (1 + |exact|). Exit code 0
// when every element is. The storage, the call and the footprint are worked_example.cpp's.
#include "../models/worked_example.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"
#include "../runtime/image_storage.hpp"

using model = ctattn_firmware::models::worked_example;

static_assert(ctattn::default_arithmetic == ctattn::arithmetic::fast, "a *_fast image computes with the fast default");

CTATTN_FIRMWARE_IMAGE_STORAGE(model)

int main() {
  using namespace ctattn_firmware;
  publish_footprint<model>();
  return check_model_into<model, comparison::within_bound>(ctattn_input, ctattn_weights, ctattn_output,
                                                           ctattn_workspace);
}
