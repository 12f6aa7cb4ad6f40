// Firmware image: the verified model (a transformer trained in PyTorch, weights imported from .safetensors) run on
// the target for its four golden inputs and compared bit for bit with the compiler's evaluation embedded in the
// image. Exit code 0 when every logit matches.
#include "../models/verified_sorter.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::verified_sorter>();
  return ctattn_firmware::check_model<ctattn_firmware::models::verified_sorter>();
}
