// Rule: restricted attention centres a window on each query: n_q = n_kv
// expected-error: ctattn: a sliding window is centred on each
// expected-rule: shape_error::sliding_window_needs_as_many_queries_as_keys<ctattn::op::scaled_dot_product_attention, ctattn::dim<ctattn::unnamed, 4>, ctattn::dim<ctattn::unnamed, 7> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::matrix<float, 7, 8> k{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, k, k, ctattn::sliding_window<2>);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(k, k, k, ctattn::sliding_window<2>);
#endif
  return r(0, 0);
}
