// Rule: the softmax backward pass needs the upstream gradient in the shape of the weights
// expected-error: ctattn: the operands must have matching columns \(equal
// expected-rule: shape_error::columns_must_match<ctattn::op::softmax_backward, ctattn::dim<seq_kv, 5>, ctattn::dim<seq_kv, 6> ?>
#include <ctattn/attention/gradient.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};
inline const ctattn::matrix<float, seq_q{4}, seq_kv{5}> weights{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const ctattn::matrix<float, seq_q{4}, seq_kv{6}> upstream{};
#else
  const ctattn::matrix<float, seq_q{4}, seq_kv{5}> upstream{};
#endif
  return ctattn::softmax_rows_backward(weights, upstream)(0, 0);  // <- mistake
}
