// Rule: an int8 quantization's zero point is an int8 (the int8 value of real 0)
// expected-error: ctattn: an int8 quantization's zero point must lie in \[-128, 127\]
// expected-rule: shape_error::zero_point_must_fit_int8<ctattn::op::quantized_matrix, ctattn::quantization_constant<
#include <ctattn/quantized/qmatrix.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline ctattn::qmatrix<2, 3, ctattn::quantization{0.05, 200}> activations{};  // <- mistake
#else
inline ctattn::qmatrix<2, 3, ctattn::quantization{0.05, 100}> activations{};
#endif
