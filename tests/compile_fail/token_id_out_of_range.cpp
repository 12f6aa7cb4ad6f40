// Rule: a token id known at compile time must be inside the vocabulary
// expected-error: ctattn: the index is past the end of
// expected-rule: shape_error::index_must_be_inside_dimension<ctattn::op::token_embedding, ctattn::count<6>, ctattn::dim<vocab, 6> ?>
#include <array>
#include <cstddef>
#include <ctattn/position/embedding.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};
inline const ctattn::matrix<float, vocab{6}, d_model{16}> table{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr std::array<std::size_t, 3> ids{0, 6, 2};
#else
  constexpr std::array<std::size_t, 3> ids{0, 5, 2};
#endif
  return ctattn::embed_tokens<ids>(table)(0, 0);  // <- mistake
}
