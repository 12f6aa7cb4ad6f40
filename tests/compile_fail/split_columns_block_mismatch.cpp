// Rule: named head blocks must cover d_model exactly
// expected-error: ctattn: the blocks together must be exactly as
// expected-rule: shape_error::parts_times_block_must_equal_dimension<ctattn::op::split_columns, ctattn::count<4>, ctattn::dim<d_k, 8>, ctattn::dim<d_model, 16> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::split_columns<4, d_k{8}>(x)[0];  // <- mistake
#else
  const auto r = ctattn::split_columns<4, d_k{4}>(x)[0];
#endif
  return r(0, 0);
}
