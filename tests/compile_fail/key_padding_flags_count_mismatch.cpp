// Rule: key padding flags come one per key
// expected-error: ctattn: a mask or bias has one column
// expected-rule: shape_error::mask_columns_must_match_keys<ctattn::op::scaled_dot_product_attention, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::matrix<float, 6, 8> k{};
inline const ctattn::key_padding_flags<5> wrong{};
inline const ctattn::key_padding_flags<6> right{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, wrong);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, right);
#endif
  return r(0, 0);
}
