// Rule: decoding token by token goes through a causal layer
// expected-error: ctattn: decoding token by token needs a causal layer
// expected-rule: shape_error::decoding_layer_must_be_causal<ctattn::op::decoding_step, ctattn::no_mask_type ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::transformer_encoder_layer<float, 8, 2, 16> layer{};
#else
inline const ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::relu, false, ctattn::causal_mask> layer{};
#endif
inline ctattn::kv_cache<float, 4, 8> cache{};

float use() {
  ctattn::matrix<float, 1, 8> y{};
  const bool stepped = layer.step(ctattn::matrix<float, 1, 8>{}, cache, y);  // <- mistake
  return stepped ? y(0, 0) : 0.0f;
}
