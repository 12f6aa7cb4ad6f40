// Firmware image: a KWT-Tiny-size keyword transformer in float (firmware/models/kwt_tiny.hpp) run on the target for
// two inputs of 49 MFCC frames and compared bit for bit with the compiler's logits embedded in the image. Exit
// code 0 when every logit matches.
#include "../models/kwt_tiny.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::kwt_tiny>();
  return ctattn_firmware::check_model<ctattn_firmware::models::kwt_tiny>();
}
