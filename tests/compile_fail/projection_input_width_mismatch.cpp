// Rule: a projection's input features match the input's width
// expected-error: ctattn: a projection's input must have as many
// expected-rule: shape_error::input_width_must_match_weight<ctattn::op::projection, ctattn::dim<d_model, 16>, ctattn::dim<ctattn::unnamed, 24> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};
inline const ctattn::linear<float, 24, d_k{16}> wrong{};
inline const ctattn::linear<float, d_model{16}, d_k{24}> right{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::project(x, wrong);  // <- mistake
#else
  const auto r = ctattn::project(x, right);
#endif
  return r(0, 0);
}
