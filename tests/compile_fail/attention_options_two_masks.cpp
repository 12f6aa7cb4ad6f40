// Rule: after its operands an attention call takes at most one mask and one result form (combine masks with
// ctattn::combine_masks)
// expected-error: ctattn: after its operands an attention call
// expected-rule: shape_error::options_must_be_one_of_each_kind<ctattn::op::scaled_dot_product_attention,
// ctattn::causal_mask, ctattn::basic_key_padding_flags<
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> q{};
inline const ctattn::key_padding_flags<4> padding{{true, true, true, false}};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, q, q, ctattn::causal, padding);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, q, q, ctattn::combine_masks(ctattn::causal, padding));
#endif
  return r(0, 0);
}
