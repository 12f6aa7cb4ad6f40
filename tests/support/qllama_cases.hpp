// SPDX-License-Identifier: BSL-1.0
// The llama-style model in int8 (ctattn/quantized/llama.hpp): a tiny model (vocabulary 16, width 8, 2 blocks of 2
// query heads over 1 key/value head, hidden 12, 8 positions) with weights from a fixed hash, its ranges recorded in
// a constant expression, quantized by ctattn::quantize; the checks tests/static/qllama_test.cpp asserts at compile
// time and tests/runtime/qllama_test.cpp runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

namespace ctattn_test::qllama_cases {

template <bool Tied>
using model = ctattn::llama_transformer<float, 16, 8, 2, 2, 1, 12, 8, Tied>;

// A value in [-0.5, 0.5) from k, by a multiplicative hash (no period the model's shapes would line up with).
constexpr float hashed(std::uint32_t k) noexcept {
  const std::uint32_t h = (k + 1) * 2654435761u;
  return static_cast<float>((h >> 8) % 1024u) / 1024.0f - 0.5f;
}

// The model's weights: every tensor from the hash, scaled so that a projection keeps its input's size (2 / sqrt of
// its inputs); the embedding's rows far apart (each token along an axis of its own, +4 or -4, so that the logits'
// margins are large); the RMSNorms' weights near 1.
template <bool Tied>
constexpr model<Tied> weights() noexcept {
  model<Tied> m{};
  std::uint32_t k = 0;
  ctattn::for_each_parameter(m, [&](std::string_view name, const auto& view) {
    const bool norm = name.ends_with("norm.weight");
    const bool table = name == "tok_embeddings.weight";
    const bool wide = name.ends_with("w2.weight");  // 12 inputs
    const float scale = wide ? 0.58f : 0.71f;
    for (std::size_t i = 0; i < view.size; ++i, ++k) {
      // Token j's row (i = 8 j + c): +4 (j < 8) or -4 (j >= 8) at column j mod 8, and a little of the hash.
      const float axis = i % 8 == (i / 8) % 8 ? (i / 8 < 8 ? 4.0f : -4.0f) : 0.0f;
      view[i] = norm ? 1.0f + 0.25f * hashed(k) : (table ? axis + 0.25f * hashed(k) : scale * hashed(k));
    }
  });
  if constexpr (!Tied) {
    // The untied head predicts the next id: its row j is the table's row j - 1 (mod 16), so that greedy decoding
    // counts up, each pick by a large margin.
    for (std::size_t j = 0; j < 16; ++j) {
      for (std::size_t c = 0; c < 8; ++c)
        m.output.weight.elements[j][c] = m.tok_embeddings.weight.elements[(j + 15) % 16][c];
    }
  }
  return m;
}

// The prompt, and a second sequence for calibration.
inline constexpr std::array<int, 8> prompt{1, 5, 9, 3, 14, 0, 7, 11};
inline constexpr std::array<int, 8> calibration{2, 12, 4, 15, 6, 10, 8, 13};
// Greedy decoding: the prompt's first `prompt_tokens` tokens, then `generated` tokens, each the last one's greedy pick.
inline constexpr std::size_t prompt_tokens = 3;
inline constexpr std::size_t generated = 5;

template <bool Tied>
inline constexpr model<Tied> float_model = weights<Tied>();

template <bool Tied>
inline constexpr auto recorded = [] {
  ctattn::activation_ranges<64> r{};
  (void)ctattn::record_ranges(float_model<Tied>, prompt, r);
  (void)ctattn::record_ranges(float_model<Tied>, calibration, r);
  return r;
}();
template <bool Tied>
inline constexpr auto table = recorded<Tied>.table();

template <bool Tied>
using int8_model = ctattn::quantized_model<model<Tied>, table<Tied>>;
template <bool Tied>
inline constexpr int8_model<Tied> quantized = ctattn::quantize<table<Tied>>(float_model<Tied>);

// Every point the int8 llama reads, named as ctattn/quantized/llama.hpp's table says, and the recorded logits
// `forward`'s, bit for bit; no name overflowed the recorder.
template <bool Tied>
constexpr bool records_every_point() noexcept {
  ctattn::activation_ranges<64> r{};
  const auto logits = ctattn::record_ranges(float_model<Tied>, prompt, r);
  if (!(logits == float_model<Tied>.forward(prompt)) || r.overflowed) return false;
  for (const char* block : {"layers.0", "layers.1"}) {
    for (const char* point :
         {"attention_norm", "attention.query", "attention.key", "attention.value", "attention.scores",
          "attention.context", "attention", "sum1", "ffn_norm", "feed_forward.w1", "feed_forward.activation",
          "feed_forward.w3", "feed_forward.product", "feed_forward"}) {
      ctattn::parameter_name name{};
      name.append(block);
      name.append(".");
      name.append(point);
      if (r.find(name.view()) == nullptr) return false;
    }
    if (r.find(block) == nullptr) return false;
  }
  for (const char* point : {"tok_embeddings.weight", "layers", "norm", "output"}) {
    if (r.find(point) == nullptr) return false;
  }
  return true;
}

// The rotated query's range holds the projection's: recorded before and after the rotation.
template <bool Tied>
constexpr bool query_range_holds_rotation() noexcept {
  const ctattn::value_range* q = recorded<Tied>.find("layers.0.attention.query");
  return q != nullptr && q->lo < 0 && q->hi > 0;
}

// The int8 step over the prompt gives the int8 forward's rows, bit for bit.
template <typename M, std::size_t N, typename Ids>
constexpr bool step_matches_forward(const M& m, const Ids& ids) noexcept {
  const auto whole = m.forward(ids);
  typename M::template decode_state<N> state{};
  typename M::logits_row row{};
  for (std::size_t t = 0; t < N; ++t) {
    if (m.step(ids[t], state, row) != ctattn::decode_status::decoded) return false;
    for (std::size_t j = 0; j < M::vocabulary; ++j) {
      if (row.elements[0][j] != whole.elements[t][j]) return false;
    }
  }
  return state.length() == N;
}

// The largest |dequantized int8 logit - float logit| over the prompt's rows, and the largest |float logit|.
struct logits_error {
  double error;
  double largest;
};
template <bool Tied>
constexpr logits_error int8_logits_error() noexcept {
  const auto q = quantized<Tied>.forward(prompt);
  const auto f = float_model<Tied>.forward(prompt);
  logits_error e{0, 0};
  for (std::size_t t = 0; t < prompt.size(); ++t) {
    for (std::size_t j = 0; j < 16; ++j) {
      const double y = static_cast<double>(f.elements[t][j]);
      const double d = q.real(t, j) - y;
      e.error = (d < 0 ? -d : d) > e.error ? (d < 0 ? -d : d) : e.error;
      e.largest = (y < 0 ? -y : y) > e.largest ? (y < 0 ? -y : y) : e.largest;
    }
  }
  return e;
}
// The bound: the int8 logits within 5% of the largest float logit (two int8 blocks, each activation rounded to
// 1/255 of its range, and a head of 8-term sums; 1.8% seen).
inline constexpr double logits_bound = 0.05;

// Greedy decoding in float and in int8 from the prompt's first tokens: the tokens each picks, and the smallest
// margin (the float logits' top minus their second) over the float model's picks.
struct greedy_run {
  std::array<std::size_t, generated> float_tokens;
  std::array<std::size_t, generated> int8_tokens;
  double smallest_margin;
};
template <bool Tied>
constexpr greedy_run greedy() noexcept {
  greedy_run g{{}, {}, 1e300};
  typename model<Tied>::template decode_state<prompt_tokens + generated> fs{};
  typename model<Tied>::logits_row frow{};
  typename int8_model<Tied>::template decode_state<prompt_tokens + generated> qs{};
  typename int8_model<Tied>::logits_row qrow{};
  std::size_t f_next = 0;
  std::size_t q_next = 0;
  for (std::size_t t = 0; t + 1 < prompt_tokens + generated; ++t) {
    const std::size_t f_token = t < prompt_tokens ? static_cast<std::size_t>(prompt[t]) : f_next;
    const std::size_t q_token = t < prompt_tokens ? static_cast<std::size_t>(prompt[t]) : q_next;
    (void)float_model<Tied>.step(f_token, fs, frow);
    (void)quantized<Tied>.step(q_token, qs, qrow);
    f_next = ctattn::greedy_token(frow);
    q_next = ctattn::greedy_token(qrow);
    if (t + 1 >= prompt_tokens) {
      g.float_tokens[t + 1 - prompt_tokens] = f_next;
      g.int8_tokens[t + 1 - prompt_tokens] = q_next;
      double second = -1e300;
      for (std::size_t j = 0; j < 16; ++j) {
        const double v = static_cast<double>(frow.elements[0][j]);
        if (j != f_next && v > second) second = v;
      }
      const double margin = static_cast<double>(frow.elements[0][f_next]) - second;
      g.smallest_margin = margin < g.smallest_margin ? margin : g.smallest_margin;
    }
  }
  return g;
}

// Greedy picks after each prefix of the prompt (the argmax of each row of the logits over the whole prompt), in
// float and in int8: the rows whose float margin (top minus second) is larger than twice the int8 logits' error,
// and how many of those the int8 model picks differently.
struct prefix_picks {
  std::size_t rows_with_large_margins;
  std::size_t differing;
};
template <bool Tied>
constexpr prefix_picks greedy_after_each_prefix() noexcept {
  const double error = int8_logits_error<Tied>().error;
  const auto q = quantized<Tied>.forward(prompt);
  const auto f = float_model<Tied>.forward(prompt);
  prefix_picks p{0, 0};
  for (std::size_t t = 0; t < prompt.size(); ++t) {
    std::size_t best = 0;
    std::size_t q_best = 0;
    for (std::size_t j = 1; j < 16; ++j) {
      if (f.elements[t][j] > f.elements[t][best]) best = j;
      if (q.elements[t][j] > q.elements[t][q_best]) q_best = j;
    }
    double second = -1e300;
    for (std::size_t j = 0; j < 16; ++j) {
      const double v = static_cast<double>(f.elements[t][j]);
      if (j != best && v > second) second = v;
    }
    if (static_cast<double>(f.elements[t][best]) - second > 2 * error) {
      ++p.rows_with_large_margins;
      if (q_best != best) ++p.differing;
    }
  }
  return p;
}

// The decoding step's refusals: a token outside the vocabulary (negative, or too large) and a full cache change
// nothing.
template <bool Tied>
constexpr bool step_refuses() noexcept {
  const auto& m = quantized<Tied>;
  typename int8_model<Tied>::template decode_state<2> state{};
  typename int8_model<Tied>::logits_row row{};
  if (m.step(-1, state, row) != ctattn::decode_status::token_outside_vocabulary) return false;
  if (m.step(std::size_t{16}, state, row) != ctattn::decode_status::token_outside_vocabulary) return false;
  if (state.length() != 0) return false;
  if (m.step(1, state, row) != ctattn::decode_status::decoded) return false;
  if (m.step(2, state, row) != ctattn::decode_status::decoded) return false;
  const auto before = row;
  if (m.step(3, state, row) != ctattn::decode_status::cache_full) return false;
  return state.length() == 2 && row == before;
}

// A block alone, as the whole model `ctattn::quantize` is given (a one-layer qchain of a qllama_block), its points
// recorded without a path (`attention_norm`, `attention.query`, ..., `output`) on the first block's input of the
// model above: the block's int8 step gives its int8 forward's rows, bit for bit.
using block = ctattn::llama_block<float, 8, 2, 1, 12, 8>;
inline constexpr block float_block = boost::hana::at_c<0>(float_model<true>.layers.layers);
inline constexpr auto block_input = float_model<true>.tok_embeddings.forward(prompt);
inline constexpr auto block_recorded = [] {
  ctattn::activation_ranges<32> r{};
  (void)ctattn::record_ranges(float_block, block_input, r);
  return r;
}();
inline constexpr auto block_table = block_recorded.table();
inline constexpr auto quantized_block = ctattn::quantize<block_table>(float_block);

constexpr bool block_step_matches_forward() noexcept {
  const auto& q = quantized_block.layer<0>();
  using q_type = std::remove_cvref_t<decltype(q)>;
  const auto x = ctattn::quantize<q_type::input_quantization>(block_input);
  const auto whole = quantized_block.forward(x);
  typename q_type::template cache_type<8> cache{};
  typename q_type::output_row row{};
  for (std::size_t t = 0; t < 8; ++t) {
    ctattn::qmatrix<1, 8, q_type::input_quantization> x_t{};
    for (std::size_t j = 0; j < 8; ++j) x_t.elements[0][j] = x.elements[t][j];
    if (!q.step(x_t, cache, row)) return false;
    for (std::size_t j = 0; j < 8; ++j) {
      if (row.elements[0][j] != whole.elements[t][j]) return false;
    }
  }
  ctattn::qmatrix<1, 8, q_type::input_quantization> x_t{};
  return !q.step(x_t, cache, row) && block_recorded.find("attention.scores") != nullptr &&
         block_recorded.find("feed_forward.product") != nullptr && block_recorded.find("output") != nullptr;
}

}  // namespace ctattn_test::qllama_cases
