// Rule: a head split makes at least one part
// expected-error: ctattn: the count \(parts, heads, tokens\) must be
// expected-rule: shape_error::count_must_be_positive<ctattn::op::split_columns, ctattn::count<0> ?>
#include <ctattn/ctattn.hpp>

#include <array>

inline const ctattn::matrix<float, 2, 8> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::split_columns<0>(x).size() == 0 ? 0.0f : 1.0f;  // <- mistake
#else
  const auto r = ctattn::split_columns<2>(x)[0](0, 0);
#endif
  return r;
}
