// Rule: batches combined item by item have matching batch axes: heads{3} against a batch of 4 items
// expected-error: ctattn: batches combined item by item must
// expected-rule: shape_error::batch_axes_must_match<ctattn::op::batch_map, ctattn::dim<heads, 3>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/ctattn.hpp>

struct heads : ctattn::dimension<"heads"> {};
using item = ctattn::matrix<float, 2, 2>;
inline const ctattn::batch<item, heads{3}> a{};

struct add {
  constexpr item operator()(const item& x, const item& y) const { return x + y; }
};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const ctattn::batch<item, 4> b{};
  const auto r = ctattn::batch_map(add{}, a, b);  // <- mistake
#else
  const ctattn::batch<item, heads{3}> b{};
  const auto r = ctattn::batch_map(add{}, a, b);
#endif
  return r[0](0, 0);
}
