// Rule: an int8 model of decoder layers runs with the memory they attend to (ctattn::with_memory)
// expected-error: ctattn: a decoder layer attends to the encoder's memory, and the call gives none
// expected-rule: shape_error::decoder_needs_its_memory<ctattn::op::quantized_decoder_layer, false>
#include <ctattn/quantized/model.hpp>

struct decoder : ctattn::model<decoder> {
  BOOST_HANA_DEFINE_STRUCT(decoder, (ctattn::transformer_decoder_layer<float, 8, 2, 16>, block));
};
inline constexpr ctattn::named_range ranges[] = {{"input", {-2, 2}},
                                                 {"memory", {-2, 2}},
                                                 {"block.sum1", {-3, 3}},
                                                 {"block.norm1", {-2, 2}},
                                                 {"block.query", {-2, 2}},
                                                 {"block.key", {-2, 2}},
                                                 {"block.value", {-2, 2}},
                                                 {"block.scores", {-2, 2}},
                                                 {"block.context", {-2, 2}},
                                                 {"block.attention", {-2, 2}},
                                                 {"block.norm2", {-2, 2}},
                                                 {"block.cross_query", {-2, 2}},
                                                 {"block.cross_key", {-2, 2}},
                                                 {"block.cross_value", {-2, 2}},
                                                 {"block.cross_scores", {-2, 2}},
                                                 {"block.cross_context", {-2, 2}},
                                                 {"block.cross_attention", {-2, 2}},
                                                 {"block.sum2", {-3, 3}},
                                                 {"block.hidden", {-2, 2}},
                                                 {"block.activation", {0, 2}},
                                                 {"block.feed_forward", {-2, 2}},
                                                 {"block.sum3", {-3, 3}},
                                                 {"block", {-2, 2}}};
inline constexpr auto int8_decoder = ctattn::quantize<ranges>(decoder{});
using int8_type = std::remove_cvref_t<decltype(int8_decoder)>;
inline const ctattn::qmatrix<3, 8, int8_type::first_layer::input_quantization> tgt{};
inline const ctattn::qmatrix<4, 8, int8_type::memory_quantization> memory{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = int8_decoder.forward(tgt);  // <- mistake
#else
  const auto y = int8_decoder.forward(tgt, ctattn::with_memory(memory));
#endif
  return y(0, 0);
}
