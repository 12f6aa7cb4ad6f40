// Rule: a sequential model has at least one layer
// expected-error: ctattn: ctattn::sequential needs at least one layer
// expected-rule: shape_error::sequence_must_not_be_empty<ctattn::op::sequential, ctattn::count<0(UL)?> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::sequential<> model{};  // <- mistake
#else
inline const ctattn::sequential<ctattn::relu> model{};
#endif

float use() {
  const auto y = ctattn::forward(model, ctattn::matrix<float, 2, 3>{});
  return y(0, 0);
}
