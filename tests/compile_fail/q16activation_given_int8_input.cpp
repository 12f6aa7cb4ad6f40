// Rule: an int16 activation takes int16 values; an int8 matrix is converted first (TFLite's QUANTIZE)
// expected-error: ctattn: one operand is int8 and the other int16 \(a 16x8 layer takes int16 inputs\)
// expected-rule: shape_error::quantized_operands_must_have_one_width<ctattn::op::quantized_activation, ctattn::basic_qmatrix<2(UL)?, 4(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::qactivation<
#include <ctattn/quantized/activation.hpp>

#include <ctattn/layers/activation.hpp>  // the float layer it is tabled from

inline constexpr ctattn::quantization q_x8{0.02, -5}, q_x16{0.0005}, q_gelu16{0.0004};
inline constexpr auto gelu16 = ctattn::quantize_activation<q_x16, q_gelu16, std::int16_t>(ctattn::gelu{});
inline const ctattn::qmatrix<2, 4, q_x8> x8{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto h = ctattn::activate(x8, gelu16);  // <- mistake
#else
  const auto h = ctattn::activate(ctattn::quantize<q_x16, std::int16_t>(x8), gelu16);
#endif
  return h(0, 0);
}
