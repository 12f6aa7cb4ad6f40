// Rule: a decoder layer's masks say which attention they are for (ctattn::tgt_mask or ctattn::memory_mask)
// expected-error: ctattn: a decoder layer has two attentions, so its masks say which they are for
// expected-rule: shape_error::decoder_masks_must_name_their_attention<ctattn::op::transformer_decoder_layer, ctattn::key_padding_length ?>
#include <ctattn/layers.hpp>

inline const ctattn::transformer_decoder_layer<float, 8, 2, 16> layer{};
inline const ctattn::matrix<float, 5, 8> tgt{};
inline const ctattn::matrix<float, 7, 8> memory{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = layer.forward(tgt, memory, ctattn::key_padding_length{4});  // <- mistake
#else
  const auto y = layer.forward(tgt, memory, ctattn::memory_mask(ctattn::key_padding_length{4}));
#endif
  return y(0, 0);
}
