// Rule: an int16 LayerNorm takes int16 rows; an int8 matrix is converted first (TFLite's QUANTIZE)
// expected-error: ctattn: one operand is int8 and the other int16 \(a 16x8 layer takes int16 inputs\)
// expected-rule: shape_error::quantized_operands_must_have_one_width<ctattn::op::quantized_layer_norm, ctattn::basic_qmatrix<2(UL)?, 4(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::qlayer_norm<
#include <ctattn/quantized/norm.hpp>

#include <ctattn/layers/norm.hpp>  // the float layer it is quantized from

inline constexpr ctattn::quantization q_x8{0.02, -5}, q_x16{0.0005}, q_norm16{0.0002};
inline constexpr ctattn::layer_norm<float, 4> norm{};
inline constexpr auto norm16 = ctattn::quantize_layer_norm<q_x16, q_norm16, std::int16_t>(norm);
inline const ctattn::qmatrix<2, 4, q_x8> x8{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto h = ctattn::normalize(x8, norm16);  // <- mistake
#else
  const auto h = ctattn::normalize(ctattn::quantize<q_x16, std::int16_t>(x8), norm16);
#endif
  return h(0, 0);
}
