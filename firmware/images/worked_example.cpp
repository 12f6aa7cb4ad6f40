// Firmware image: the reference text's worked example (one head, 6 x 16, d_k = 24, d_v = 28) evaluated on the
// target with ctattn::self_attention(..., ctattn::into(context, workspace)) and compared bit for bit with the compiler's evaluation embedded in
// the image. Exit code 0 when every element matches.
#include "../models/worked_example.hpp"
#include "../runtime/check_model.hpp"
#include "../runtime/footprint_symbols.hpp"
#include "../runtime/image_storage.hpp"

using model = ctattn_firmware::models::worked_example;

// The image's storage, under fixed names so that the footprint test finds them in the symbol table: the
// weights and the input in flash (.rodata), the workspace and the output in .bss.
CTATTN_FIRMWARE_IMAGE_STORAGE(model)

int main() {
  ctattn_firmware::publish_footprint<model>();
  return ctattn_firmware::check_model_into<model>(ctattn_input, ctattn_weights, ctattn_output, ctattn_workspace);
}
