// Firmware image: KWT-1 in int8 (firmware/models/kwt1_int8.hpp), quantized by the compiler with the ranges the
// build machine recorded, run on the target in integers only for two inputs, and compared bit for bit with the
// build machine's int8 logits (firmware/tools/kwt1_expected.cpp). Exit code 0 when every logit matches.
#include "../models/kwt1_int8.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::kwt1_int8>();
  return ctattn_firmware::check_model<ctattn_firmware::models::kwt1_int8>();
}
