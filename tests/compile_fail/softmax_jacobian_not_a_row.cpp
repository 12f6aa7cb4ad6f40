// Rule: the softmax Jacobian is taken at one row
// expected-error: ctattn: the operand must be a single row
// expected-rule: shape_error::must_be_a_single_row<ctattn::op::softmax_jacobian, ctattn::dim<ctattn::unnamed, 2> ?>
#include <ctattn/attention/gradient.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const ctattn::matrix<float, 2, 5> s{};
#else
  const ctattn::matrix<float, 1, 5> s{};
#endif
  return ctattn::softmax_jacobian(s)(0, 0);  // <- mistake
}
