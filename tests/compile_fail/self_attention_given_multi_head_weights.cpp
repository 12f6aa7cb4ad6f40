// Rule: self-attention through one head takes one head: multi-head weights (which also hold W_O) are rejected
// instead of having their W_O silently ignored
// expected-error: ctattn: this call takes one attention head
// expected-rule: shape_error::argument_must_be_one_attention_head<ctattn::op::self_attention, ctattn::basic_multi_head_attention_weights<float, 4, (d_model\{|\{\{16)
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};
inline const ctattn::multi_head_attention_weights<float, 4, d_model{16}> mha{};
inline const ctattn::attention_head<float, d_model{16}, 4, 4> head{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::self_attention(x, mha);  // <- mistake
#else
  const auto y = ctattn::multi_head_attention(x, x, x, mha) +
                 ctattn::concat_columns(ctattn::self_attention(x, head), ctattn::self_attention(x, head),
                                        ctattn::self_attention(x, head), ctattn::self_attention(x, head));
#endif
  return y(0, 0);
}
