// Rule: a 16x8 layer takes int16 inputs; an int8 matrix is converted first (TFLite's QUANTIZE)
// expected-error: ctattn: one operand is int8 and the other int16 \(a 16x8 layer takes int16 inputs\)
// expected-rule: shape_error::quantized_operands_must_have_one_width<ctattn::op::quantized_projection, ctattn::basic_qmatrix<1(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::q16linear<
#include <ctattn/quantized/q16linear.hpp>

inline constexpr ctattn::quantization q_in8{0.02, -5}, q_in16{0.0005}, q_out16{0.002};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{
    {{{0.5f, -0.25f, 0.125f}, {1.0f, 0.0f, -1.0f}}}, {{{0.1f, -0.2f}}}};
inline constexpr auto head16 = ctattn::quantize_linear<q_in16, q_out16, std::int16_t>(head);
inline const ctattn::qmatrix<1, 3, q_in8> x8{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::project(x8, head16);  // <- mistake
#else
  const auto y = ctattn::project(ctattn::quantize<q_in16, std::int16_t>(x8), head16);
#endif
  return y(0, 0);
}
