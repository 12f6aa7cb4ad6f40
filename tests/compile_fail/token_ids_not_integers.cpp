// Rule: token ids index the embedding table's rows, so they are integers
// expected-error: ctattn: token ids index the embedding table
// expected-rule: shape_error::token_ids_must_be_integers<ctattn::op::token_embedding, float ?>
#include <ctattn/ctattn.hpp>

#include <array>

struct vocab : ctattn::dimension<"vocab"> {};
struct d_model : ctattn::dimension<"d_model"> {};
inline constexpr ctattn::matrix<float, vocab{4}, d_model{8}> table{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr std::array<float, 2> ids{1.0f, 3.0f};
  const auto x = ctattn::embed_tokens<ids>(table);  // <- mistake
#else
  constexpr std::array<int, 2> ids{1, 3};
  const auto x = ctattn::embed_tokens<ids>(table);
#endif
  return x(0, 0);
}
