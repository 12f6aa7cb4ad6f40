// Rule: an output written in place has one row per query
// expected-error: ctattn: the output has one row per query,
// expected-rule: shape_error::output_rows_must_match_queries<ctattn::op::scaled_dot_product_attention,
// ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<seq, 6> ?>
#include <ctattn/attention/workspace.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
inline const ctattn::matrix<float, seq{6}, d_k{8}> q{};
inline const ctattn::matrix<float, seq{6}, d_k{8}> k{};
inline const ctattn::matrix<float, seq{6}, d_v{4}> v{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  static ctattn::matrix<float, 5, d_v{4}> out;
#else
  static ctattn::matrix<float, seq{6}, d_v{4}> out;
#endif
  ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(out));  // <- mistake
  return out(0, 0);
}
