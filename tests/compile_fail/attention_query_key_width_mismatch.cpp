// Rule: scaled dot-product attention needs d_q = d_k
// expected-error: ctattn: queries and keys are compared by dot
// expected-rule: shape_error::query_and_key_widths_must_match<ctattn::op::scaled_dot_product_attention, ctattn::dim<ctattn::unnamed, 24>, ctattn::dim<ctattn::unnamed, 28> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 6, 24> q{};
inline const ctattn::matrix<float, 6, 28> v{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, v, v);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, q, v);
#endif
  return r(0, 0);
}
