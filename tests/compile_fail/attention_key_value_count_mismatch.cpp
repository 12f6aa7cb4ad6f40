// Rule: every key needs a value: K and V have the same number of rows
// expected-error: ctattn: every key needs its value, so keys
// expected-rule: shape_error::key_and_value_counts_must_match<ctattn::op::scaled_dot_product_attention, ctattn::dim<ctattn::unnamed, 7>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::matrix<float, 7, 8> k{};
inline const ctattn::matrix<float, 6, 5> v{};
inline const ctattn::matrix<float, 7, 5> v7{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, k, v);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, k, v7);
#endif
  return r(0, 0);
}
