#ifndef CTATTN_FIRMWARE_MODELS_TINY_LLAMA_HPP
#define CTATTN_FIRMWARE_MODELS_TINY_LLAMA_HPP

/// \file
/// A tiny language model of llama2.c's `stories260K` shape on the target: vocabulary 512, dim 64, 5 layers, 8 query
/// heads over 4 key/value heads (head_dim 8), SwiGLU hidden 172, 512 positions, the output head tied to the token
/// embedding: 260,032 parameters (1,040,128 bytes in float), 226,560 + 32,768 multiply-adds per token besides
/// attention over the cache (`multiply_adds_per_token`).
///
/// No weights can be downloaded in the build, so the weights are numbers fixed by their place
/// (`make_weights`, usable at compile time and at run time): the images check arithmetic and decoding, not text.
/// A prompt of 8 token ids is fed token by token through the key/value caches, then 16 tokens are generated
/// greedily (`ctattn::greedy_token`), each fed back: 23 steps. The build machine runs the same steps
/// (firmware/tools/tiny_llama_expected.cpp, exact arithmetic: static_assert's bits) and writes every step's logits
/// and the generated ids as a header, which the images reproduce bit for bit; a whole generation (6 M
/// multiply-adds) is beyond constant evaluation in a build.
///
/// | value        | shape / meaning                                           |
/// |--------------|-----------------------------------------------------------|
/// | `prompt`     | 8 token ids                                               |
/// | `generation` | 16 generated ids, then the 23 steps' logits (23 x 512)    |
/// | `state`      | `model::decode_state<capacity>`: 5 caches of 32 tokens    |

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <ctattn/layers/llama.hpp>

#include "synthetic.hpp"

namespace ctattn_firmware::models::tiny_llama {

inline constexpr std::size_t vocabulary = 512;
inline constexpr std::size_t width = 64;
inline constexpr std::size_t layers = 5;
inline constexpr std::size_t heads = 8;
inline constexpr std::size_t key_value_heads = 4;
inline constexpr std::size_t hidden = 172;
inline constexpr std::size_t positions = 512;

/// stories260K's shape; `output` tied to `tok_embeddings` as llama2.c exports it.
using model = ctattn::llama_transformer<float, vocabulary, width, layers, heads, key_value_heads, hidden, positions>;

inline constexpr std::size_t prompt_length = 8;
inline constexpr std::size_t generated = 16;
/// Steps of one generation: each prompt token, then each generated token but the last.
inline constexpr std::size_t steps = prompt_length + generated - 1;
/// The caches' capacity: the steps, rounded up.
inline constexpr std::size_t capacity = 32;
static_assert(steps <= capacity);

using state = model::decode_state<capacity>;
using logits_row = model::logits_row;

/// The prompt's ids (1 is llama2.c's BOS).
inline constexpr std::array<std::uint16_t, prompt_length> prompt{1, 72, 105, 33, 200, 17, 400, 5};

/// Multiply-adds of one step besides attention over the cache: per layer wq, wk, wv, wo (d (d + 2 kv + d)) and the
/// gated feed-forward block (3 d hidden), and the tied head (vocabulary d).
inline constexpr std::size_t multiply_adds_per_token =
    layers * (width * (2 * width + 2 * key_value_heads * (width / heads)) + 3 * width * hidden) + vocabulary * width;
static_assert(multiply_adds_per_token == 259'328, "the model's shape changed: update docs/firmware.md's figures");

/// The weights: the RMSNorms' gains in [7/8, 9/8), every other tensor in [-1, 1) scaled by 1/2 (`w2`, of fan-in
/// 172: 1/4). Rationale: with weights of 1 / sqrt(fan-in) the tied head's logits favour the token just fed (its own
/// embedding dominates the residual stream) and the generation repeats the prompt's last id; at these scales the
/// blocks' outputs dominate, the 16 generated ids differ, and the top logit of each step leads the next by 0.05
/// to 1.2 (of about 7), clear of any rounding. The same numbers at compile time and at run time.
constexpr void make_weights(model& m) noexcept {
  synthetic::values v{0x5eed'0260u};
  ctattn::for_each_parameter(m, [&](std::string_view name, const auto& view) {
    const bool gain = name.ends_with("norm.weight");
    const float scale = name.ends_with("w2.weight") ? 0.25f : 0.5f;
    for (std::size_t k = 0; k < view.size; ++k) view[k] = gain ? 1.0f + v.next() / 8 : v.next() * scale;
  });
}

/// What a generation gives: the generated ids and every step's logits.
struct generation {
  std::array<std::uint16_t, generated> tokens{};
  std::array<std::array<float, vocabulary>, steps> logits{};
};

/// The prompt and the greedy generation (`ctattn::generate_greedy`) with `options` (an arithmetic), from an empty
/// `s`; `record(step, logits)` sees every step's logits. Returns the number of generated ids (`generated` unless a
/// step failed). `M` is the float model or its int8 form (tiny_llama_int8.hpp), with their decode states and rows.
template <typename M, typename State, typename Logits, typename Record, typename... Options>
constexpr std::size_t generate(const M& m, State& s, Logits& logits, std::uint16_t* tokens, Record&& record,
                               const Options&... options) noexcept {
  s.clear();
  return ctattn::generate_greedy(m, s, logits, prompt, std::span<std::uint16_t, generated>{tokens, generated}, record,
                                 options...)
      .generated;
}

/// The calibration sequences the int8 model's ranges are recorded over (firmware/tools/tiny_llama_ranges.cpp): the
/// prompt followed by the float model's own greedy continuation, and three sequences of ids from `seeds`.
inline constexpr std::uint32_t calibration_seeds[] = {11, 12, 13};
constexpr std::array<int, steps> calibration_ids(std::uint32_t seed) noexcept {
  synthetic::values v{seed};
  std::array<int, steps> ids{};
  for (auto& id : ids) id = static_cast<int>((v.next() + 1.0f) * (vocabulary / 2)) % static_cast<int>(vocabulary);
  return ids;
}

}  // namespace ctattn_firmware::models::tiny_llama

#endif  // CTATTN_FIRMWARE_MODELS_TINY_LLAMA_HPP
