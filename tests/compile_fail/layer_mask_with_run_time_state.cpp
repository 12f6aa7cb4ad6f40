// Rule: a layer's Mask type holds no run-time state (key padding goes to the call)
// expected-error: ctattn: a layer's Mask type must hold no run-time state
// expected-rule: shape_error::layer_mask_must_hold_no_state<ctattn::op::layer, ctattn::key_padding_length>
#include <ctattn/layers.hpp>

// Made empty at every call, a key_padding_length would have no valid key and zero the attention.
#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::relu, false, ctattn::key_padding_length>
    layer{};  // <- mistake
#else
inline const ctattn::transformer_encoder_layer<float, 8, 2, 16> layer{};  // the mask goes to the call below
#endif

float use() {
  const auto y = ctattn::forward(layer, ctattn::matrix<float, 3, 8>{}, ctattn::key_padding_length{2});
  return y(0, 0);
}
