// Firmware image: the verified model in its other quantization modes (firmware/models/verified_sorter_modes.hpp:
// int8 weights per tensor; int4 weights per channel, per tensor, and with the head's int8), run on the target for
// its four golden inputs, in integers only, and compared bit for bit with the compiler's int8 logits embedded in the
// image, one model after the other in that order. Exit code 0 when every logit of every model matches.
#include "../models/verified_sorter_modes.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  using namespace ctattn_firmware::models;
  ctattn_firmware::publish_footprint<verified_sorter_int4>();
  const int results[] = {ctattn_firmware::check_model<verified_sorter_int8_per_tensor>(),
                         ctattn_firmware::check_model<verified_sorter_int4>(),
                         ctattn_firmware::check_model<verified_sorter_int4_per_tensor>(),
                         ctattn_firmware::check_model<verified_sorter_int4_head_int8>()};
  for (const int result : results) {
    if (result != 0) return result;
  }
  return 0;
}
