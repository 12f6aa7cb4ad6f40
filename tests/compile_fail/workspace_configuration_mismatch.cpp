// Rule: a workspace is declared for one attention configuration (here for 7 tokens, used with 6)
// expected-error: ctattn: the workspace was declared for another attention
// expected-rule: shape_error::workspace_must_match_attention<ctattn::op::self_attention, ctattn::workspace_shape<float,
// ctattn::dim<seq, 7>, ctattn::dim<seq, 7>, ctattn::dim<d_k, 24>, ctattn::dim<d_v, 28> ?>,
// ctattn::workspace_shape<float, ctattn::dim<seq, 6>, ctattn::dim<seq, 6>, ctattn::dim<d_k, 24>, ctattn::dim<d_v, 28>
// ?> ?>
#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/workspace.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
using head_type = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
inline const head_type head{};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};
inline const ctattn::matrix<float, seq{7}, d_model{16}> x7{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  static ctattn::self_attention_workspace<decltype(x7), head_type> workspace;
#else
  static ctattn::self_attention_workspace<decltype(x), head_type> workspace;
#endif
  static ctattn::matrix<float, seq{6}, d_v{28}> context;
  ctattn::self_attention(x, head, ctattn::into(context, workspace));  // <- mistake
  return context(0, 0);
}
