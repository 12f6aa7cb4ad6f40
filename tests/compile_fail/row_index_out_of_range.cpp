// Rule: a compile-time row index must be inside the matrix
// expected-error: ctattn: the index is past the end of
// expected-rule: shape_error::index_must_be_inside_dimension<ctattn::op::row, ctattn::count<6>, ctattn::dim<seq, 6> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::row<6>(x);  // <- mistake
#else
  const auto r = ctattn::row<5>(x);
#endif
  return r(0, 0);
}
