// Rule: int16 matrices are added by ctattn::add<Out>(a, b), which takes the sum's quantization (an operator cannot)
// expected-error: ctattn: quantized matrices \(int8 or int16\) are added and multiplied by ctattn::add<Out>
// expected-rule: shape_error::int8_operation_needs_output_quantization<ctattn::op::quantized_add, ctattn::basic_q16matrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_q16matrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}> ?>
#include <ctattn/quantized/int16.hpp>

inline constexpr ctattn::quantization q_a{0.0005}, q_b{0.0002}, q_sum{0.001};
inline const ctattn::q16matrix<2, 3, q_a> a{};
inline const ctattn::q16matrix<2, 3, q_b> b{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto sum = a + b;  // <- mistake
#else
  const auto sum = ctattn::add<q_sum>(a, b);
#endif
  return sum(0, 0);
}
