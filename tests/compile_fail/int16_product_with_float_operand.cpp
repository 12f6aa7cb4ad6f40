// Rule: an int16 product takes int16 operands only (a float operand is quantized to int16 first)
// expected-error: ctattn: a quantized operation takes quantized operands only
// expected-rule: shape_error::int8_operands_must_both_be_int8<ctattn::op::quantized_multiply, ctattn::basic_q16matrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_matrix<float, 3(UL)?, 2(UL)?> ?>
#include <ctattn/quantized/int16.hpp>

inline constexpr ctattn::quantization q_a{0.0005}, q_w{0.0002}, q_y{0.001};
inline const ctattn::q16matrix<2, 3, q_a> a{};
inline const ctattn::matrix<float, 3, 2> w{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::multiply<q_y>(a, w);  // <- mistake
#else
  const auto y = ctattn::multiply<q_y>(a, ctattn::quantize<q_w, std::int16_t>(w));
#endif
  return y(0, 0);
}
