// Rule: element-wise operations need matching columns, names included
// expected-error: ctattn: the operands must have matching columns \(equal
// expected-rule: shape_error::columns_must_match<ctattn::op::subtract, ctattn::dim<d_k, 8>, ctattn::dim<d_v, 8> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{2}, d_k{8}> a{};
inline const ctattn::matrix<float, seq{2}, d_v{8}> b{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = a - b;  // <- mistake
#else
  const auto r = a - ctattn::with_extents<seq{2}, d_k{8}>(b);
#endif
  return r(0, 0);
}
