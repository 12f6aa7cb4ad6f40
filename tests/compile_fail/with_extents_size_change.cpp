// Rule: relabelling keeps a dimension's size
// expected-error: ctattn: a new extent for existing data must
// expected-rule: shape_error::relabelled_dimension_must_keep_its_size<ctattn::op::with_extents, ctattn::dim<ctattn::unnamed, 8>, ctattn::dim<d_k, 4> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, 2, 8> a{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::with_extents<seq{2}, d_k{4}>(a);  // <- mistake
#else
  const auto r = ctattn::with_extents<seq{2}, d_k{8}>(a);
#endif
  return r(0, 0);
}
