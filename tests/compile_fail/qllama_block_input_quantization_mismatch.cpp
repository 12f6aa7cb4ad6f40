// Rule: an int8 llama block's input is quantized as the block was quantized for (its attention norm's input)
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_layer_norm, ctattn::quantization_constant<
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

// Vocabulary 8, width 4, 1 block of 2 query heads over 1 key/value head, hidden 4, 4 positions, an untied head.
// Rationale: untied, so that the int8 model's type the compilers print names its head's qlinear, a public int8
// layer, rather than the tied head's data (a ctattn::detail type).
using tiny = ctattn::llama_transformer<float, 8, 4, 1, 2, 1, 4, 4, false>;
// Every point the int8 model reads (ctattn/quantized/llama.hpp's table), as a generated ranges header holds them.
inline constexpr ctattn::named_range ranges[] = {{"tok_embeddings.weight", {-1.0, 1.0}},
                                                 {"tok_embeddings", {-1.0, 1.0}},
                                                 {"layers.0.attention_norm", {-2.0, 2.0}},
                                                 {"layers.0.attention.query", {-2.0, 2.0}},
                                                 {"layers.0.attention.key", {-2.0, 2.0}},
                                                 {"layers.0.attention.value", {-2.0, 2.0}},
                                                 {"layers.0.attention.scores", {-4.0, 4.0}},
                                                 {"layers.0.attention.context", {-2.0, 2.0}},
                                                 {"layers.0.attention", {-2.0, 2.0}},
                                                 {"layers.0.sum1", {-3.0, 3.0}},
                                                 {"layers.0.ffn_norm", {-2.0, 2.0}},
                                                 {"layers.0.feed_forward.w1", {-2.0, 2.0}},
                                                 {"layers.0.feed_forward.activation", {-0.5, 2.0}},
                                                 {"layers.0.feed_forward.w3", {-2.0, 2.0}},
                                                 {"layers.0.feed_forward.product", {-4.0, 4.0}},
                                                 {"layers.0.feed_forward", {-2.0, 2.0}},
                                                 {"layers.0", {-4.0, 4.0}},
                                                 {"layers", {-4.0, 4.0}},
                                                 {"norm", {-2.0, 2.0}},
                                                 {"output", {-8.0, 8.0}}};
constexpr auto model_q = ctattn::quantize<ranges>(tiny{});
constexpr const auto& block_q = model_q.layers.layer<0>();
using block_type = std::remove_cvref_t<decltype(block_q)>;
inline constexpr ctattn::quantization q_other{1.0 / 32};
inline const ctattn::basic_qmatrix<std::size_t{3}, block_type::input_extent, q_other> other_x{};
inline const ctattn::basic_qmatrix<std::size_t{3}, block_type::input_extent, block_type::input_quantization> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return block_q.forward(other_x)(0, 0);  // <- mistake
#else
  return block_q.forward(x)(0, 0);
#endif
}
