// Rule: the int8 llama model rotates each position by its row of the rotary table: the ids must fit the table
// expected-error: ctattn: the sequence has more positions than the
// expected-rule: shape_error::sequence_must_fit_position_table<ctattn::op::llama_attention, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <array>

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
inline const std::array<int, 5> long_ids{1, 5, 2, 7, 3};
inline const std::array<int, 4> ids{1, 5, 2, 7};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return model_q.forward(long_ids)(0, 0);  // <- mistake
#else
  return model_q.forward(ids)(0, 0);
#endif
}
