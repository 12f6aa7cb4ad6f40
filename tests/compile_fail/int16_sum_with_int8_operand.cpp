// Rule: a quantized operation takes operands of one width, both int8 or both int16 (TFLite's QUANTIZE converts)
// expected-error: ctattn: one operand is int8 and the other int16
// expected-rule: shape_error::quantized_operands_must_have_one_width<ctattn::op::quantized_add, ctattn::basic_qmatrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_q16matrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}> ?>
#include <ctattn/quantized/int16.hpp>

inline constexpr ctattn::quantization q8{0.05, -3}, q16{0.0005};
inline const ctattn::qmatrix<2, 3, q8> x{};
inline const ctattn::q16matrix<2, 3, q16> h{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::add<ctattn::quantization{0.001}>(x, h);  // <- mistake
#else
  (void)ctattn::add<ctattn::quantization{0.001}>(ctattn::quantize<q16, std::int16_t>(x), h);
#endif
}
