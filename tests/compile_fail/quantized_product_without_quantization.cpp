// Rule: int8 matrices are multiplied by ctattn::multiply<Out>(a, b), which takes the product's quantization
// expected-error: ctattn: quantized matrices \(int8 or int16\) are added and multiplied by ctattn::add<Out>
// expected-rule: shape_error::int8_operation_needs_output_quantization<ctattn::op::quantized_multiply, ctattn::basic_qmatrix<2(UL)?, 3(UL)?, (ctattn::quantization)?\{[^}]*\}>, ctattn::basic_qmatrix<3(UL)?, 4(UL)?, (ctattn::quantization)?\{[^}]*\}> ?>
#include <ctattn/quantized/multiply.hpp>

inline constexpr ctattn::quantization q_a{0.05, 0};
inline constexpr ctattn::quantization q_b{0.02, 3};
inline constexpr ctattn::quantization q_product{0.1, -2};
inline const ctattn::qmatrix<2, 3, q_a> a{};
inline const ctattn::qmatrix<3, 4, q_b> b{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto product = a * b;  // <- mistake
#else
  const auto product = ctattn::multiply<q_product>(a, b);
#endif
  return product(0, 0);
}
