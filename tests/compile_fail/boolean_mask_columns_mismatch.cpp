// Rule: a boolean mask has one column per key, names included
// expected-error: ctattn: a mask or bias has one column
// expected-rule: shape_error::mask_columns_must_match_keys<ctattn::op::scaled_dot_product_attention, ctattn::dim<d_model, 6>, ctattn::dim<seq, 6> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, 8> x{};
inline const ctattn::boolean_mask<seq{6}, d_model{6}> wrong{};
inline const ctattn::boolean_mask<seq{6}, seq{6}> right{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::scaled_dot_product_attention(x, x, x, wrong);  // <- mistake
#else
  const auto r = ctattn::scaled_dot_product_attention(x, x, x, right);
#endif
  return r(0, 0);
}
