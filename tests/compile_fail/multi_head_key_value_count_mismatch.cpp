// Rule: multi-head cross-attention: key and value inputs have the same length
// expected-error: ctattn: every key needs its value, so keys
// expected-rule: shape_error::key_and_value_counts_must_match<ctattn::op::multi_head_attention, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::multi_head_attention_weights<float, 2, 8> w{};
inline const ctattn::matrix<float, 3, 8> q{};
inline const ctattn::matrix<float, 5, 8> k{};
inline const ctattn::matrix<float, 4, 8> v{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::multi_head_attention(q, k, v, w);  // <- mistake
#else
  const auto r = ctattn::multi_head_attention(q, k, k, w);
#endif
  return r(0, 0);
}
