// Rule: 16x8 attention takes int16 rows; an int8 matrix is converted first (TFLite's QUANTIZE)
// expected-error: ctattn: one operand is int8 and the other int16 \(a 16x8 layer takes int16 inputs\)
// expected-rule: shape_error::quantized_operands_must_have_one_width<ctattn::op::int16_multi_head_attention, ctattn::basic_qmatrix<3(UL)?, 4(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::q16linear<
#include <ctattn/quantized/q16attention.hpp>

inline constexpr ctattn::quantization q_x8{0.02, -5}, q_x16{0.0005}, q_p16{0.0004}, q_scores16{0.0003};
inline constexpr ctattn::linear<float, 4, 4, ctattn::out_by_in, true> projection{};
inline constexpr auto p16 = ctattn::quantize_linear<q_x16, q_p16, std::int16_t>(projection);
inline constexpr auto weights16 = ctattn::make_qmulti_head_attention_weights<2>(
    p16, p16, p16, ctattn::quantize_linear<q_p16, q_p16, std::int16_t>(projection));
inline const ctattn::qmatrix<3, 4, q_x8> x8{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::multi_head_attention<q_scores16>(x8, weights16);  // <- mistake
#else
  const auto y = ctattn::multi_head_attention<q_scores16>(ctattn::quantize<q_x16, std::int16_t>(x8), weights16);
#endif
  return y(0, 0);
}
