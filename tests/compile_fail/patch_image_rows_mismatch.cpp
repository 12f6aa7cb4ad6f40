// Rule: a 2-d patch embedding takes its image as height x width rows of pixels, the channels as columns
// expected-error: ctattn: a 2-d patch embedding takes the image as height \* width rows of pixels
// expected-rule: shape_error::image_rows_must_match_patch_layer<ctattn::op::patch_embedding, ctattn::dim<ctattn::axis::input_rows, 32>, ctattn::dim<ctattn::axis::image_pixels, 1024> ?>
#include <ctattn/layers.hpp>

inline const ctattn::patch_embedding_2d<float, 3, 32, 32, 8, 8, 16> embed{};
inline const ctattn::matrix<float, 32, 3> one_row_of_pixels{};
inline const ctattn::matrix<float, 32 * 32, 3> image{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto tokens = ctattn::forward(embed, one_row_of_pixels);  // <- mistake
#else
  const auto tokens = ctattn::forward(embed, image);
#endif
  return tokens(0, 0);
}
