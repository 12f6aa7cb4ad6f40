// Rule: a boolean mask has one row per query
// expected-error: ctattn: a mask or bias has one row
// expected-rule: shape_error::mask_rows_must_match_queries<ctattn::op::scaled_dot_product_attention, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::matrix<float, 6, 8> k{};
inline const ctattn::boolean_mask<5, 6> wrong{};
inline const ctattn::boolean_mask<4, 6> right{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, wrong);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, right);
#endif
  return r(0, 0);
}
