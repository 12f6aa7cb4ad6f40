// Rule: a position table must have the width of the embedded tokens
// expected-error: ctattn: the operands must have matching columns \(equal
// expected-rule: shape_error::columns_must_match<ctattn::op::position_embedding, ctattn::dim<d_model, 16>, ctattn::dim<d_k, 16> ?>
#include <ctattn/position/embedding.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const ctattn::matrix<float, 8, d_k{16}> positions{};
#else
  const ctattn::matrix<float, 8, d_model{16}> positions{};
#endif
  return ctattn::add_position_embeddings(x, positions)(0, 0);  // <- mistake
}
