// Rule: a product needs the columns of a to equal the rows of b
// expected-error: ctattn: in a product a \* b the
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<ctattn::unnamed, 16>, ctattn::dim<ctattn::unnamed, 24> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::matrix<float, 6, 16> x{};
inline const ctattn::matrix<float, 24, 16> w_torch_layout{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::multiply(x, w_torch_layout);  // <- mistake
#else
  const auto r = ctattn::multiply(x, ctattn::transpose(w_torch_layout));
#endif
  return r(0, 0);
}
