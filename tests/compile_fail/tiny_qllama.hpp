// SPDX-License-Identifier: BSL-1.0
// The smallest int8 llama model and attention the int8 llama's compile-fail tests (qllama_*.cpp) make their mistakes
// with, defined once: the float model, the ranges of every point it reads, `model_q` (its int8 form) and its first
// block, and an int8 llama attention alone.
#ifndef CTATTN_TESTS_COMPILE_FAIL_TINY_QLLAMA_HPP
#define CTATTN_TESTS_COMPILE_FAIL_TINY_QLLAMA_HPP

// Rationale: the rules' header first, so that GCC's "In file included from" chain before a rule's error is two lines,
// not the ten of layers.hpp's includes: the rule must be named within the first 16 lines.
#include <ctattn/matrix/rules.hpp>
#include <ctattn/quantized/rules.hpp>

#include <ctattn/layers.hpp>
#include <ctattn/quantized/llama.hpp>
#include <ctattn/quantized/model.hpp>

namespace tiny_qllama {
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

// An int8 llama attention alone: width 8, 2 heads over 1 key/value head, 4 positions, its input in q_x.
inline constexpr ctattn::quantization q_x{1.0 / 64};
inline constexpr ctattn::llama_attention_quantizations attention_quantizations{.query = {1.0 / 64},
                                                                               .key = {1.0 / 64},
                                                                               .value = {1.0 / 64},
                                                                               .scores = {1.0 / 16},
                                                                               .context = {1.0 / 64},
                                                                               .output = {1.0 / 64}};
inline constexpr auto attention_q =
    ctattn::quantize_llama_attention<q_x, attention_quantizations>(ctattn::llama_attention<float, 8, 2, 1, 4>{});
}  // namespace tiny_qllama

#endif  // CTATTN_TESTS_COMPILE_FAIL_TINY_QLLAMA_HPP
