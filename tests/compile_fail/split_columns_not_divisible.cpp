// Rule: splitting d_model into heads needs the number of heads to divide d_model
// expected-error: ctattn: the number of parts must divide the
// expected-rule: shape_error::parts_must_divide_dimension<ctattn::op::split_columns, ctattn::count<3>, ctattn::dim<d_model, 16> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::split_columns<3>(x)[0];  // <- mistake
#else
  const auto r = ctattn::split_columns<4>(x)[0];
#endif
  return r(0, 0);
}
