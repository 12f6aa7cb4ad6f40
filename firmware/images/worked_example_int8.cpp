// Firmware image: the reference text's worked example in int8 (firmware/models/worked_example_int8.hpp), its int8
// input and weights read through a pointer the compiler cannot see through, computed on the target in integers only
// and compared, element by element, with the compiler's evaluation embedded in the image. Exit code 0 when every
// element matches.
#include "../models/worked_example_int8.hpp"
#include "../runtime/check_model.hpp"

int main() { return ctattn_firmware::check_model<ctattn_firmware::models::worked_example_int8>(); }
