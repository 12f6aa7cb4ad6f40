// Rule: ALiBi slopes are defined for at least one head
// expected-error: ctattn: the count \(parts, heads, tokens\) must be
// expected-rule: shape_error::count_must_be_positive<ctattn::op::alibi, ctattn::count<0> ?>
#include <ctattn/ctattn.hpp>

#include <array>

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::alibi_slopes<float, 0>().size() == 0 ? 0.0f : 1.0f;  // <- mistake
#else
  const auto r = ctattn::alibi_slopes<float, 8>()[0];
#endif
  return r;
}
