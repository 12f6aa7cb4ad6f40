// Rule: narrow multi-head attention splits d_model into equal heads: h divides d_model
// expected-error: ctattn: the heads split d_model into equal parts,
// expected-rule: shape_error::heads_must_divide_model_width<ctattn::op::multi_head_attention, ctattn::count<3>, ctattn::dim<d_model, 16> ?>
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::multi_head_attention_weights<float, 3, d_model{16}> w{};  // <- mistake
#else
inline const ctattn::multi_head_attention_weights<float, 4, d_model{16}> w{};
#endif
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::multi_head_attention(x, x, x, w);
#else
  const auto r = ctattn::multi_head_attention(x, x, x, w);
#endif
  return r(0, 0);
}
