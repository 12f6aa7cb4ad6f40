// Firmware image: the KWT-Tiny-size keyword transformer in int8, quantized by the compiler from ranges it recorded
// (firmware/models/kwt_tiny.hpp), run on the target in integers only for two inputs and compared bit for bit with
// the compiler's int8 logits. Its RAM for one inference is static_assert-ed under 64 KB and within the board's
// stack. Exit code 0 when every logit matches.
#include "../models/kwt_tiny.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::kwt_tiny_int8>();
  return ctattn_firmware::check_model<ctattn_firmware::models::kwt_tiny_int8>();
}
