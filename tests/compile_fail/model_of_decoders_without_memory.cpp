// Rule: a model of decoder layers runs with the memory they attend to (ctattn::with_memory)
// expected-error: ctattn: a decoder layer attends to the encoder's memory, and the call gives none
// expected-rule: shape_error::decoder_needs_its_memory<ctattn::op::model, false>
#include <ctattn/layers.hpp>

struct decoder : ctattn::model<decoder> {
  BOOST_HANA_DEFINE_STRUCT(decoder, (ctattn::transformer_decoder_layer<float, 8, 2, 16>, block),
                           (ctattn::linear<float, 8, 4, ctattn::out_by_in, true>, head));
};
inline const ctattn::matrix<float, 3, 8> tgt{};
inline const ctattn::matrix<float, 4, 8> memory{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = decoder{}.forward(tgt);  // <- mistake
#else
  const auto y = decoder{}.forward(tgt, ctattn::with_memory(memory));
#endif
  return y(0, 0);
}
