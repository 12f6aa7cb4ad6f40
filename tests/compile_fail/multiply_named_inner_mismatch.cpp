// Rule: a product contracts an axis with itself: Q V^T fails when d_k and d_v are different axes, even at equal sizes
// expected-error: ctattn: in a product a \* b the
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<d_k, 64>, ctattn::dim<d_v, 64> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_k{64}> q{};
inline const ctattn::matrix<float, seq{6}, d_k{64}> k{};
inline const ctattn::matrix<float, seq{6}, d_v{64}> v{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = q * ctattn::transpose(v);  // <- mistake
#else
  const auto r = q * ctattn::transpose(k);
#endif
  return r(0, 0);
}
