// Rule: the element-wise product needs operands of the same shape
// expected-error: ctattn: the operands must have matching columns \(equal
// expected-rule: shape_error::columns_must_match<ctattn::op::hadamard, ctattn::dim<ctattn::unnamed, 4>, ctattn::dim<ctattn::unnamed, 5> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 2, 4> a{};
inline const ctattn::matrix<float, 2, 5> b{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::hadamard(a, b);  // <- mistake
#else
  const auto r = ctattn::hadamard(a, a);
#endif
  return r(0, 0);
}
