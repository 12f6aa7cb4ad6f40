// Rule: an additive bias has the shape of the scores, n_q x n_kv
// expected-error: ctattn: a mask or bias has one column
// expected-rule: shape_error::mask_columns_must_match_keys<ctattn::op::scaled_dot_product_attention, ctattn::dim<ctattn::unnamed, 4>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::matrix<float, 6, 8> k{};
inline const ctattn::matrix<float, 4, 4> wrong{};
inline const ctattn::matrix<float, 4, 6> right{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, ctattn::additive_bias(wrong));  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, ctattn::additive_bias(right));
#endif
  return r(0, 0);
}
