// Firmware image: the verified model in int8 with int4 weights, per channel and per tensor
// (firmware/models/verified_sorter_int4.hpp), run on the target for its four golden inputs, in integers only, and
// compared bit for bit with the compiler's int8 logits embedded in the image. Exit code 0 when every logit matches.
#include "../models/verified_sorter_int4.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::verified_sorter_int4>();
  const int per_channel = ctattn_firmware::check_model<ctattn_firmware::models::verified_sorter_int4>();
  const int per_tensor = ctattn_firmware::check_model<ctattn_firmware::models::verified_sorter_int4_per_tensor>();
  return per_channel != 0 ? per_channel : per_tensor;
}
