// Rule: a 1-d patch embedding cuts the sequence into whole patches, so the kernel divides the sequence's length
// expected-error: ctattn: a patch embedding cuts its input into whole patches, so the patch's side must divide the input's
// expected-rule: shape_error::patch_must_divide_input<ctattn::op::patch_embedding, ctattn::dim<ctattn::axis::sequence_length, 98>, ctattn::dim<ctattn::axis::patch_length, 4> ?>
#include <ctattn/layers.hpp>

inline const ctattn::patch_embedding_1d<float, 40, 4, 64> embed{};
inline const ctattn::matrix<float, 98, 40> frames98{};
inline const ctattn::matrix<float, 96, 40> frames96{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto tokens = ctattn::forward(embed, frames98);  // <- mistake
#else
  const auto tokens = ctattn::forward(embed, frames96);
#endif
  return tokens(0, 0);
}
