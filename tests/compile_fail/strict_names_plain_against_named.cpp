// Rule: in strict-names mode (CTATTN_STRICT_NAMES) a plain size no longer matches a named extent of the same size
// expected-error: ctattn: in a product a \* b the
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<d_model, 16>, ctattn::dim<ctattn::unnamed, 16> ?>
#define CTATTN_STRICT_NAMES 1
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const ctattn::matrix<float, 16, d_k{8}> w_plain{};
  const auto q = x * w_plain;  // <- mistake
#else
  const ctattn::matrix<float, d_model{16}, d_k{8}> w_named{};
  const auto q = x * w_named;
#endif
  return q(0, 0);
}
