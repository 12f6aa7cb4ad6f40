// Rule: a quantization's scale is a positive finite number
// expected-error: ctattn: a quantization's scale must be a positive finite number
// expected-rule: shape_error::scale_must_be_positive<ctattn::op::quantized_matrix, ctattn::quantization_constant<
#include <ctattn/quantized/qmatrix.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline ctattn::qmatrix<2, 3, ctattn::quantization{-0.05, 0}> activations{};  // <- mistake
#else
inline ctattn::qmatrix<2, 3, ctattn::quantization{0.05, 0}> activations{};
#endif
