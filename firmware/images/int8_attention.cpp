// Firmware image: int8 attention (docs/quantized.md) evaluated on the target in integers and compared, element by
// element, with the compiler's evaluation embedded in the image (itself the Python reference's result). Exit code 0
// when every element matches.
#include "../models/int8_attention.hpp"
#include "../runtime/check_model.hpp"

int main() { return ctattn_firmware::check_model<ctattn_firmware::models::int8_attention>(); }
