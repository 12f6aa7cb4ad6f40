// Firmware image: the worked example with 3 wide heads (6 x 16 -> 6 x 84) evaluated on the target with
// ctattn::wide_multi_head_attention(..., ctattn::into(concat, workspace)) and compared bit for bit with the compiler's evaluation embedded in
// the image. Exit code 0 when every element matches.
#include "../models/worked_example_three_heads.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"
#include "../runtime/image_storage.hpp"

using model = ctattn_firmware::models::worked_example_three_heads;

// Flash: the three heads' weights and the input; .bss: one head's workspace and the concatenated output.
CTATTN_FIRMWARE_IMAGE_STORAGE(model)

int main() {
  ctattn_firmware::publish_footprint<model>();
  return ctattn_firmware::check_model_into<model>(ctattn_input, ctattn_weights, ctattn_output, ctattn_workspace);
}
