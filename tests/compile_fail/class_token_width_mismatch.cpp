// Rule: a class token is as wide as the tokens it is put before
// expected-error: ctattn: a layer's input must have as many columns as the layer's input width
// expected-rule: shape_error::input_width_must_match_layer<ctattn::op::layer, ctattn::dim<ctattn::unnamed, 64>, ctattn::dim<ctattn::unnamed, 32> ?>
#include <ctattn/layers.hpp>

inline const ctattn::class_token<float, 32> cls_token{};
inline const ctattn::matrix<float, 98, 64> tokens64{};
inline const ctattn::matrix<float, 98, 32> tokens32{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto tokens = ctattn::forward(cls_token, tokens64);  // <- mistake
#else
  const auto tokens = ctattn::forward(cls_token, tokens32);
#endif
  return tokens(0, 0);
}
