// Rule: d_q = d_k by name too: keys projected to d_v cannot meet queries of d_k, even at equal sizes
// expected-error: ctattn: queries and keys are compared by dot
// expected-rule: shape_error::query_and_key_widths_must_match<ctattn::op::scaled_dot_product_attention, ctattn::dim<d_k, 64>, ctattn::dim<d_v, 64> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_k{64}> q{};
inline const ctattn::matrix<float, seq{6}, d_v{64}> v{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(q, v, v);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(q, q, v);
#endif
  return r(0, 0);
}
