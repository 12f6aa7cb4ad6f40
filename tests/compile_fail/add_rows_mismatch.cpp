// Rule: element-wise operations need matching rows
// expected-error: ctattn: the operands must have matching rows \(equal
// expected-rule: shape_error::rows_must_match<ctattn::op::add, ctattn::dim<ctattn::unnamed, 2>, ctattn::dim<ctattn::unnamed, 3> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 2, 4> a{};
inline const ctattn::matrix<float, 3, 4> b{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = a + b;  // <- mistake
#else
  const auto r = a + a;
#endif
  return r(0, 0);
}
