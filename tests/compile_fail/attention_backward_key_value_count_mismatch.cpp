// Rule: the backward pass of attention needs one value per key
// expected-error: ctattn: every key needs its value, so keys
// expected-rule: shape_error::key_and_value_counts_must_match<ctattn::op::attention_backward, ctattn::dim<seq_kv, 5>, ctattn::dim<seq_kv, 4> ?>
#include <ctattn/attention/gradient.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};
inline const ctattn::matrix<float, seq_q{4}, d_k{6}> q{};
inline const ctattn::matrix<float, seq_kv{5}, d_k{6}> k{};
inline const ctattn::matrix<float, seq_kv{5}, d_v{3}> v{};
inline const ctattn::matrix<float, seq_q{4}, d_v{3}> g{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const ctattn::matrix<float, seq_kv{4}, d_v{3}> values{};
#else
  const ctattn::matrix<float, seq_kv{5}, d_v{3}> values{};
#endif
  return ctattn::attention_backward(q, k, values, g).keys(0, 0);  // <- mistake
}
