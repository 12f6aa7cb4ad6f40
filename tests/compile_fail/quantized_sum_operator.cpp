// Rule: int8 matrices are added by ctattn::add<Out>(a, b), which takes the sum's quantization (an operator cannot)
// expected-error: ctattn: quantized matrices \(int8 or int16\) are added and multiplied by ctattn::add<Out>
// expected-rule: shape_error::int8_operation_needs_output_quantization<ctattn::op::quantized_add, ctattn::basic_qmatrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_qmatrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}> ?>
#include <ctattn/quantized/add.hpp>

inline constexpr ctattn::quantization q_a{0.05, 0};
inline constexpr ctattn::quantization q_b{0.02, 3};
inline constexpr ctattn::quantization q_sum{0.06, -1};
inline const ctattn::qmatrix<2, 3, q_a> a{};
inline const ctattn::qmatrix<2, 3, q_b> b{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto sum = a + b;  // <- mistake
#else
  const auto sum = ctattn::add<q_sum>(a, b);
#endif
  return sum(0, 0);
}
