// Rule: grouped-query heads have at least one column
// expected-error: ctattn: the count \(parts, heads, tokens\) must be
// expected-rule: shape_error::count_must_be_positive<ctattn::op::grouped_query_attention, ctattn::count<0> ?>
#include <ctattn/ctattn.hpp>

#include <array>

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r =
      ctattn::grouped_query_attention_weights<float, 4, 2, 16, 0>{}.head_dim == 0 ? 0.0f : 1.0f;  // <- mistake
#else
  const auto r = ctattn::grouped_query_attention_weights<float, 4, 2, 16, 4>{}.head_dim == 0 ? 0.0f : 1.0f;
#endif
  return r;
}
