// Firmware image: the verified model in 16x8 (int16 activations, int8 weights; weights imported from .safetensors
// and quantized by the compiler) run on the target for its four golden inputs, in integers only, and compared bit for
// bit with the compiler's int16 logits embedded in the image. Exit code 0 when every logit matches.
#include "../models/verified_sorter_16x8.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::verified_sorter_16x8>();
  return ctattn_firmware::check_model<ctattn_firmware::models::verified_sorter_16x8>();
}
