// Rule: a column block must lie inside the matrix
// expected-error: ctattn: the block reaches past the end of
// expected-rule: shape_error::block_must_fit_dimension<ctattn::op::column_block, ctattn::count<18>, ctattn::dim<d_model, 16> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::column_block<12, 6>(x);  // <- mistake
#else
  const auto r = ctattn::column_block<12, 4>(x);
#endif
  return r(0, 0);
}
