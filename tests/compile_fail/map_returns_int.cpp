// Rule: map(a, f) builds a matrix of f's results, so f must return float or double
// expected-error: ctattn: the element type must be float or
// expected-rule: shape_error::element_type_must_be_float_or_double<ctattn::op::map, int ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 2, 2> a{};

struct truncate {
  constexpr int operator()(float value) const { return static_cast<int>(value); }
};
struct halve {
  constexpr float operator()(float value) const { return value / 2; }
};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::map(a, truncate{});  // <- mistake
#else
  const auto r = ctattn::map(a, halve{});
#endif
  return static_cast<float>(r(0, 0));
}
