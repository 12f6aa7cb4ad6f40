// Rule: a sequential stack of decoder layers runs with the memory they attend to (ctattn::with_memory)
// expected-error: ctattn: a decoder layer attends to the encoder's memory, and the call gives none
// expected-rule: shape_error::decoder_needs_its_memory<ctattn::op::sequential, false>
#include <ctattn/layers.hpp>

using decoder_layer = ctattn::transformer_decoder_layer<float, 8, 2, 16>;
inline const ctattn::sequential<decoder_layer, decoder_layer> stack{};
inline const ctattn::matrix<float, 3, 8> tgt{};
inline const ctattn::matrix<float, 4, 8> memory{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::forward(stack, tgt);  // <- mistake
#else
  const auto y = ctattn::forward(stack, tgt, ctattn::with_memory(memory));
#endif
  return y(0, 0);
}
