// Rule: a 2-d patch embedding cuts the image into whole patches, so the patch divides the image's height and width
// expected-error: ctattn: a patch embedding cuts its input into whole patches, so the patch's side must divide the input's
// expected-rule: shape_error::patch_must_divide_input<ctattn::op::patch_embedding, ctattn::dim<ctattn::axis::image_width, 30>, ctattn::dim<ctattn::axis::patch_width, 4> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::patch_embedding_2d<float, 3, 32, 30, 4, 4, 16> embed{};  // <- mistake
#else
inline const ctattn::patch_embedding_2d<float, 3, 32, 32, 4, 4, 16> embed{};
#endif

float use() { return embed.projection.weight(0, 0); }
