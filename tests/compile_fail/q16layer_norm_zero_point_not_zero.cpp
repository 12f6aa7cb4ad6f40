// Rule: an int16 LayerNorm's quantizations are symmetric (zero point 0), as every 16x8 tensor
// expected-error: ctattn: an int16 quantization's zero point must be 0
// expected-rule: shape_error::int16_zero_point_must_be_zero<ctattn::op::int16_matrix, ctattn::quantization_constant<
#include <ctattn/quantized/norm.hpp>

#include <ctattn/layers/norm.hpp>  // the float layer it is quantized from

inline constexpr ctattn::quantization q_x16{0.0005}, q_asymmetric{0.0002, 12}, q_norm16{0.0002};
inline constexpr ctattn::layer_norm<float, 4> norm{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::quantize_layer_norm<q_x16, q_asymmetric, std::int16_t>(norm);  // <- mistake
#else
  (void)ctattn::quantize_layer_norm<q_x16, q_norm16, std::int16_t>(norm);
#endif
}
