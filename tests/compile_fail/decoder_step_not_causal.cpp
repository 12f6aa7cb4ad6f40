// Rule: decoding token by token goes through a causal layer (a decoder layer without its causal mask)
// expected-error: ctattn: decoding token by token needs a causal layer
// expected-rule: shape_error::decoding_layer_must_be_causal<ctattn::op::decoding_step, ctattn::no_mask_type ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::transformer_decoder_layer<float, 8, 2, 16, ctattn::relu, false, ctattn::no_mask_type> layer{};
#else
inline const ctattn::transformer_decoder_layer<float, 8, 2, 16> layer{};
#endif
inline ctattn::kv_cache<float, 4, 8> cache{};
inline ctattn::kv_cache<float, 3, 8> source{};

float use() {
  ctattn::matrix<float, 1, 8> y{};
  const bool stepped = layer.step(ctattn::matrix<float, 1, 8>{}, cache, source, y);  // <- mistake
  return stepped ? y(0, 0) : 0.0f;
}
