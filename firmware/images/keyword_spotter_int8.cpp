// Firmware image: the keyword spotter of examples/keyword_spotting/ in int8_int8 (firmware/models/keyword_spotting.hpp),
// trained in PyTorch and imported from its .safetensors file, run on the target for two held-out samples and compared
// bit for bit with the compiler's logits, which hear the keyword of each sample. Exit code 0 when every logit matches.
#include "../models/keyword_spotting.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"

static_assert(ctattn_firmware::models::spotter::hears_each_keyword<ctattn_firmware::models::keyword_spotter_int8>(),
              "the int8 keyword spotter must hear the keyword of both held-out samples");

int main() {
  ctattn_firmware::publish_footprint<ctattn_firmware::models::keyword_spotter_int8>();
  return ctattn_firmware::check_model<ctattn_firmware::models::keyword_spotter_int8>();
}
