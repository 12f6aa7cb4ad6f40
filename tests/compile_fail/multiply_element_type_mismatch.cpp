// Rule: a product needs both operands to hold the same element type
// expected-error: ctattn: the operands hold different element types \(float
// expected-rule: shape_error::element_types_must_match<ctattn::op::multiply, float, double ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 2, 3> a{};
inline const ctattn::matrix<double, 3, 2> b{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = a * b;  // <- mistake
#else
  const auto r = a * ctattn::cast<float>(b);
#endif
  return r(0, 0);
}
