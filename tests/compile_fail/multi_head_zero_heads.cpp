// Rule: multi-head attention has at least one head
// expected-error: ctattn: the count \(parts, heads, tokens\) must be
// expected-rule: shape_error::count_must_be_positive<ctattn::op::multi_head_attention, ctattn::count<0> ?>
#include <ctattn/ctattn.hpp>

#include <array>

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::multi_head_attention_weights<float, 0, 8>{}.head_dim == 0 ? 0.0f : 1.0f;  // <- mistake
#else
  const auto r = ctattn::multi_head_attention_weights<float, 2, 8>{}.head_dim == 0 ? 0.0f : 1.0f;
#endif
  return r;
}
