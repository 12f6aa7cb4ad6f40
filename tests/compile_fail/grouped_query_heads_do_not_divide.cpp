// Rule: grouped-query attention: the key/value heads divide the query heads
// expected-error: ctattn: in grouped-query attention each key/value head serves
// expected-rule: shape_error::key_value_heads_must_divide_query_heads<ctattn::op::grouped_query_attention, ctattn::count<3>, ctattn::count<4> ?>
#include <ctattn/ctattn.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::grouped_query_attention_weights<float, 4, 3, 16, 4> w{};  // <- mistake
#else
inline const ctattn::grouped_query_attention_weights<float, 4, 2, 16, 4> w{};
#endif
inline const ctattn::matrix<float, 5, 16> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::grouped_query_attention(x, x, x, w);
#else
  const auto r = ctattn::grouped_query_attention(x, x, x, w);
#endif
  return r(0, 0);
}
