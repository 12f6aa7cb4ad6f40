// Rule: a layer's input has the layer's input width (d_model for a norm or a transformer layer)
// expected-error: ctattn: a layer's input must have as many columns as the layer's input width
// expected-rule: shape_error::input_width_must_match_layer<ctattn::op::layer, ctattn::dim<ctattn::unnamed, 16>, ctattn::dim<ctattn::unnamed, 32> ?>
#include <ctattn/layers.hpp>

inline const ctattn::transformer_encoder_layer<float, 32, 4, 64> layer{};
inline const ctattn::matrix<float, 6, 16> x16{};
inline const ctattn::matrix<float, 6, 32> x32{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::forward(layer, x16);  // <- mistake
#else
  const auto y = ctattn::forward(layer, x32);
#endif
  return y(0, 0);
}
