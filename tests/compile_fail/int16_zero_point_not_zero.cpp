// Rule: an int16 quantization is symmetric, zero point 0 (TFLite's 16x8 tensors)
// expected-error: ctattn: an int16 quantization's zero point must be 0
// expected-rule: shape_error::int16_zero_point_must_be_zero<ctattn::op::int16_matrix, ctattn::quantization_constant<
#include <ctattn/quantized/q16matrix.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline ctattn::q16matrix<2, 3, ctattn::quantization{0.001, 12}> activations{};  // <- mistake
#else
inline ctattn::q16matrix<2, 3, ctattn::quantization{0.001}> activations{};
#endif
