// Rule: a decoder layer's cross-attention reads memory of width d_model (the encoder's output)
// expected-error: ctattn: the memory a decoder layer attends to \(the encoder's output\) must have d_model columns
// expected-rule: shape_error::memory_width_must_match_layer<ctattn::op::transformer_decoder_layer, ctattn::dim<ctattn::unnamed, 24>, ctattn::dim<ctattn::unnamed, 32> ?>
#include <ctattn/layers.hpp>

inline const ctattn::transformer_decoder_layer<float, 32, 4, 64> layer{};
inline const ctattn::matrix<float, 6, 32> tgt{};
inline const ctattn::matrix<float, 9, 24> memory24{};
inline const ctattn::matrix<float, 9, 32> memory32{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = layer.forward(tgt, memory24);  // <- mistake
#else
  const auto y = layer.forward(tgt, memory32);
#endif
  return y(0, 0);
}
