// Rule: a model of decoder layers records its ranges with the memory they attend to (ctattn::with_memory)
// expected-error: ctattn: a decoder layer attends to the encoder's memory, and the call gives none
// expected-rule: shape_error::decoder_needs_its_memory<ctattn::op::record_ranges, false>
#include <ctattn/quantized/ranges.hpp>

struct decoder : ctattn::model<decoder> {
  BOOST_HANA_DEFINE_STRUCT(decoder, (ctattn::transformer_decoder_layer<float, 8, 2, 16>, block));
};
inline const decoder model{};
inline const ctattn::matrix<float, 3, 8> tgt{};
inline const ctattn::matrix<float, 4, 8> memory{};

float use() {
  ctattn::activation_ranges<32> ranges{};
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::record_ranges(model, tgt, ranges);  // <- mistake
#else
  const auto y = ctattn::record_ranges(model, tgt, ranges, ctattn::with_memory(memory));
#endif
  return y(0, 0);
}
