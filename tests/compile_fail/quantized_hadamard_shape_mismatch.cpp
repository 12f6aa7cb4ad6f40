// Rule: an int8 element-wise product takes matrices of one shape
// expected-error: ctattn: the operands must have matching rows
// expected-rule: shape_error::rows_must_match<ctattn::op::quantized_hadamard, ctattn::dim<ctattn::unnamed, 3>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/quantized/hadamard.hpp>

inline constexpr ctattn::quantization q{0.05, 0};
inline const ctattn::qmatrix<3, 8, q> a{};
#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::qmatrix<4, 8, q> b{};
#else
inline const ctattn::qmatrix<3, 8, q> b{};
#endif

int use() {
  const auto y = ctattn::hadamard<q>(a, b);  // <- mistake
  return y(0, 0);
}
