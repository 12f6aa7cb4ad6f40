// Rule: concatenated heads must fill the named result exactly
// expected-error: ctattn: the blocks together must be exactly as
// expected-rule: shape_error::parts_times_block_must_equal_dimension<ctattn::op::concat_columns, ctattn::count<4>, ctattn::dim<ctattn::unnamed, 4>, ctattn::dim<d_model, 12> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
#include <array>
inline const std::array<ctattn::matrix<float, seq{6}, 4>, 4> heads{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::concat_columns<d_model{12}>(heads);  // <- mistake
#else
  const auto r = ctattn::concat_columns<d_model{16}>(heads);
#endif
  return r(0, 0);
}
