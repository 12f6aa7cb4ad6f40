// Rule: an int8 sum takes int8 operands only (a float operand is quantized first)
// expected-error: ctattn: a quantized operation takes quantized operands only
// expected-rule: shape_error::int8_operands_must_both_be_int8<ctattn::op::quantized_add, ctattn::basic_qmatrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_matrix<float, 2(UL)?, 3(UL)?> ?>
#include <ctattn/quantized/add.hpp>

inline constexpr ctattn::quantization q_x{0.05, 0};
inline constexpr ctattn::quantization q_sum{0.06, -1};
inline const ctattn::qmatrix<2, 3, q_x> x{};
inline const ctattn::matrix<float, 2, 3> residual{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::add<q_sum>(x, residual);  // <- mistake
#else
  (void)ctattn::add<q_sum>(x, ctattn::quantize<q_x>(residual));
#endif
}
