// Rule: ctattn::quantize maps llama blocks in PyTorch's out x in layout (llama2.c's, the default); a llama-style
// model of one's own whose block is in x out has no int8 form of it
// expected-error: ctattn: ctattn::quantize has no int8 form of this layer \(the layer below\); a layer of your own gives one by a friend int8_form\(self, at\)
// expected-rule: shape_error::layer_needs_an_int8_form<ctattn::op::quantize, ctattn::llama_block<float, 4, 2, 1, 4, 4, ctattn::rotary_layout::interleaved, 10000, ctattn::in_by_out>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

// Width 4, 2 query heads over 1 key/value head, hidden 4, 4 positions.
#ifdef CTATTN_COMPILE_FAIL
using block = ctattn::llama_block<float, 4, 2, 1, 4, 4, ctattn::rotary_layout::interleaved, 10000, ctattn::in_by_out>;
#else
using block = ctattn::llama_block<float, 4, 2, 1, 4, 4>;
#endif
// A llama-style model of one's own: token embedding, one block, final RMSNorm.
struct tiny_lm : ctattn::model<tiny_lm> {
  BOOST_HANA_DEFINE_STRUCT(tiny_lm, (ctattn::token_embedding<float, 8, 4>, tok_embeddings), (block, layer),
                           (ctattn::rms_norm<float, 4>, norm));
};
// Every point the int8 model reads (the block's at its path `layer`: ctattn/quantized/llama.hpp's table).
inline constexpr ctattn::named_range ranges[] = {{"tok_embeddings.weight", {-1.0, 1.0}},
                                                 {"tok_embeddings", {-1.0, 1.0}},
                                                 {"layer.attention_norm", {-2.0, 2.0}},
                                                 {"layer.attention.query", {-2.0, 2.0}},
                                                 {"layer.attention.key", {-2.0, 2.0}},
                                                 {"layer.attention.value", {-2.0, 2.0}},
                                                 {"layer.attention.scores", {-4.0, 4.0}},
                                                 {"layer.attention.context", {-2.0, 2.0}},
                                                 {"layer.attention", {-2.0, 2.0}},
                                                 {"layer.sum1", {-3.0, 3.0}},
                                                 {"layer.ffn_norm", {-2.0, 2.0}},
                                                 {"layer.feed_forward.w1", {-2.0, 2.0}},
                                                 {"layer.feed_forward.activation", {-0.5, 2.0}},
                                                 {"layer.feed_forward.w3", {-2.0, 2.0}},
                                                 {"layer.feed_forward.product", {-4.0, 4.0}},
                                                 {"layer.feed_forward", {-2.0, 2.0}},
                                                 {"layer", {-4.0, 4.0}},
                                                 {"norm", {-2.0, 2.0}}};
constexpr auto lm_q = ctattn::quantize<ranges>(tiny_lm{});  // <- mistake

int use() { return static_cast<int>(sizeof(lm_q)); }
