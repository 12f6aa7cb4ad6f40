// Rule: after its operands an attention call takes at most one arithmetic (ctattn::exact_arithmetic or
// ctattn::fast_arithmetic): two would contradict each other or say one thing twice
// expected-error: ctattn: after its operands an attention call takes at most one mask .* and at most one arithmetic
// expected-rule: shape_error::options_must_be_one_of_each_kind<ctattn::op::self_attention,
// ctattn::arithmetic_option<ctattn::arithmetic::exact>, ctattn::arithmetic_option<ctattn::arithmetic::fast>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 4, 8> x{};
inline const ctattn::attention_head<float, 8, 8, 8> head{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::self_attention(x, head, ctattn::exact_arithmetic, ctattn::fast_arithmetic);  // <- mistake
#else
  const auto r = ctattn::self_attention(x, head, ctattn::exact_arithmetic);
#endif
  return r(0, 0);
}
