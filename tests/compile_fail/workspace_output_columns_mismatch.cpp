// Rule: an output written in place has the values' width, d_v
// expected-error: ctattn: the output holds the weighted values, so
// expected-rule: shape_error::output_columns_must_match_values<ctattn::op::self_attention, ctattn::dim<d_k, 24>,
// ctattn::dim<d_v, 28> ?>
#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/workspace.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
using head_type = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
inline const head_type head{};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
  static ctattn::self_attention_workspace<decltype(x), head_type> workspace;
#ifdef CTATTN_COMPILE_FAIL
  static ctattn::matrix<float, seq{6}, d_k{24}> context;
#else
  static ctattn::matrix<float, seq{6}, d_v{28}> context;
#endif
  ctattn::self_attention(x, head, ctattn::into(context, workspace));  // <- mistake
  return context(0, 0);
}
