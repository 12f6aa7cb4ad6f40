// Firmware image: KWT-1 in float (firmware/models/kwt1_float.hpp: 12 layers, 611,107 parameters, 73.7 M
// multiply-adds per inference) run on the target for two inputs of 98 MFCC frames with exact arithmetic, and
// compared bit for bit with the logits the build machine computed (firmware/tools/kwt1_expected.cpp). Exit code 0
// when every logit matches.
#include "../models/kwt1_float.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::kwt1_float>();
  return ctattn_firmware::check_model<ctattn_firmware::models::kwt1_float>();
}
