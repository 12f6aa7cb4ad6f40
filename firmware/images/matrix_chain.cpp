// Firmware image: the matrix chain model, evaluated on the target and compared bit for bit with the
// compiler's evaluation embedded in the image. Exit code 0 when every element matches.
#include "../models/matrix_chain.hpp"
#include "../runtime/check_model.hpp"

int main() { return ctattn_firmware::check_model<ctattn_firmware::models::matrix_chain>(); }
