// Rule: an int8 product takes int8 operands only (a float operand is quantized first)
// expected-error: ctattn: a quantized operation takes quantized operands only
// expected-rule: shape_error::int8_operands_must_both_be_int8<ctattn::op::quantized_multiply, ctattn::basic_qmatrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_matrix<float, 3(UL)?, 4(UL)?> ?>
#include <ctattn/quantized/multiply.hpp>

inline constexpr ctattn::quantization q_x{0.05, 0};
inline constexpr ctattn::quantization q_w{0.02, 0};
inline constexpr ctattn::quantization q_y{0.1, -2};
inline const ctattn::qmatrix<2, 3, q_x> x{};
inline const ctattn::matrix<float, 3, 4> w{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::multiply<q_y>(x, w);  // <- mistake
#else
  (void)ctattn::multiply<q_y>(x, ctattn::quantize<q_w>(w));
#endif
}
