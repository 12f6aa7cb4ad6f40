// Rule: element-wise operations need the same element type
// expected-error: ctattn: the operands hold different element types \(float
// expected-rule: shape_error::element_types_must_match<ctattn::op::zip_map, float, double ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 2, 2> a{};
inline const ctattn::matrix<double, 2, 2> b{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::zip_map(a, b, [](float x, double y) { return x + static_cast<float>(y); });  // <- mistake
#else
  const auto r = ctattn::zip_map(a, ctattn::cast<float>(b), [](float x, float y) { return x + y; });
#endif
  return r(0, 0);
}
