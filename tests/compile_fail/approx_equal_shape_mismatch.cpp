// Rule: comparing two matrices needs the same shape
// expected-error: ctattn: the operands must have matching columns \(equal
// expected-rule: shape_error::columns_must_match<ctattn::op::approx_equal, ctattn::dim<ctattn::unnamed, 3>, ctattn::dim<ctattn::unnamed, 2> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 2, 3> a{};
inline const ctattn::matrix<float, 2, 2> b{};
inline ctattn::matrix<float, 1, 1> as_matrix(bool x) { return {{{x ? 1.0f : 0.0f}}}; }

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = as_matrix(ctattn::approx_equal(a, b, 1e-6f));  // <- mistake
#else
  const auto r = as_matrix(ctattn::approx_equal(a, a, 1e-6f));
#endif
  return r(0, 0);
}
