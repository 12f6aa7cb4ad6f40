// Rule: queries, keys and values hold one element type
// expected-error: ctattn: the operands hold different element types \(float
// expected-rule: shape_error::element_types_must_match<ctattn::op::scaled_dot_product_attention, float, double ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::matrix<double, 4, 8> k{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, k, k);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, ctattn::cast<float>(k), ctattn::cast<float>(k));
#endif
  return r(0, 0);
}
