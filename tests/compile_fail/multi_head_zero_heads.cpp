// Rule: multi-head attention has at least one head
// expected-error: multi_head_attention_weights: at least one head
#include <ctattn/ctattn.hpp>

#include <array>



float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::multi_head_attention_weights<float, 0, 8>{}.head_dim == 0 ? 0.0f : 1.0f;
#else
  const auto r = ctattn::multi_head_attention_weights<float, 2, 8>{}.head_dim == 0 ? 0.0f : 1.0f;
#endif
  return r;
}
