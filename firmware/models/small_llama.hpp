#ifndef CTATTN_FIRMWARE_MODELS_SMALL_LLAMA_HPP
#define CTATTN_FIRMWARE_MODELS_SMALL_LLAMA_HPP

/// \file
/// A one-block llama of the tiny llama's widths (tiny_llama.hpp: dim 64, 8 query heads over 4 key/value heads of
/// head_dim 8, SwiGLU hidden 172, the head tied to the embedding), vocabulary 64, 16 positions, in int8: small
/// enough for the compiler to do everything (its ranges recorded, the model quantized and a whole generation
/// decoded in constant expressions, about 50,000 multiply-adds a step), so that the image on every board checks
/// the int8 decoding step's kernels at the tiny llama's shapes bit for bit (the one-row products, the fixed-width
/// scores, the values of one query, the rotation, the RMSNorm rows) without the build machine's tools of the
/// tiny llama's heavy images.
///
/// | value        | shape / meaning                                                        |
/// |--------------|------------------------------------------------------------------------|
/// | `prompt`     | 4 token ids; then 6 generated greedily: 9 steps                       |
/// | `ranges`     | the activations' ranges, recorded over `calibration` by the compiler   |
/// | `int8_model` | `ctattn::quantized_model<model, ranges>`; `int8_state`: 16 cached tokens |
/// | `expected`   | the generated ids and every step's 64 int8 logits, by the compiler     |

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ctattn/layers/llama.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "synthetic.hpp"

namespace ctattn_firmware::models::small_llama {

inline constexpr std::size_t vocabulary = 64;
inline constexpr std::size_t width = 64;
inline constexpr std::size_t layers = 1;
inline constexpr std::size_t heads = 8;
inline constexpr std::size_t key_value_heads = 4;
inline constexpr std::size_t hidden = 172;
inline constexpr std::size_t positions = 16;

/// The tiny llama's block widths, one block, a small vocabulary; the head tied to `tok_embeddings`.
using model = ctattn::llama_transformer<float, vocabulary, width, layers, heads, key_value_heads, hidden, positions>;

inline constexpr std::size_t prompt_length = 4;
inline constexpr std::size_t generated = 6;
/// Steps of one generation: each prompt token, then each generated token but the last.
inline constexpr std::size_t steps = prompt_length + generated - 1;
inline constexpr std::size_t capacity = positions;
static_assert(steps <= capacity);

/// The prompt's ids (1 is llama2.c's BOS).
inline constexpr std::array<std::uint16_t, prompt_length> prompt{1, 17, 40, 9};

/// The weights, numbers fixed by their place as the tiny llama's (`tiny_llama::make_weights`): gains in [7/8, 9/8),
/// every other tensor in [-1, 1) scaled by 3/4 (`w2`: 1/2). Rationale: at the tiny llama's scales (1/2, 1/4) one
/// block's output is small beside the token's own embedding and the tied head repeats an id (9 62 4 4 4 4); at
/// these the six generated ids differ (9 62 37 12 3 41).
constexpr model make_model() noexcept {
  model m{};
  synthetic::values v{0x5eed'0064u};
  ctattn::for_each_parameter(m, [&](std::string_view name, const auto& view) {
    const bool gain = name.ends_with("norm.weight");
    const float scale = name.ends_with("w2.weight") ? 0.5f : 0.75f;
    for (std::size_t k = 0; k < view.size; ++k) view[k] = gain ? 1.0f + v.next() / 8 : v.next() * scale;
  });
  return m;
}

/// The calibration sequences: the prompt followed by ids fixed by their place, and a second sequence of such ids.
constexpr std::array<int, capacity> calibration_ids(std::uint32_t seed, bool from_prompt) noexcept {
  synthetic::values v{seed};
  std::array<int, capacity> ids{};
  for (std::size_t t = 0; t < capacity; ++t) {
    const int drawn = static_cast<int>((v.next() + 1.0f) * (vocabulary / 2)) % static_cast<int>(vocabulary);
    ids[t] = from_prompt && t < prompt_length ? prompt[t] : drawn;
  }
  return ids;
}

/// The ranges the int8 model is quantized with, recorded by the compiler.
inline constexpr auto recorded = [] {
  const model m = make_model();
  ctattn::activation_ranges<32> r{};
  (void)ctattn::record_ranges(m, calibration_ids(21, true), r);
  (void)ctattn::record_ranges(m, calibration_ids(22, false), r);
  return r;
}();
static_assert(!recorded.overflowed, "the recorder must hold every point the int8 llama quantizes");
inline constexpr auto ranges = recorded.table();

using int8_model = ctattn::quantized_model<model, ranges>;
using int8_state = int8_model::decode_state<capacity>;
using int8_logits = int8_model::logits_row;

/// The int8 model, quantized by the compiler.
constexpr int8_model make_int8_model() noexcept { return ctattn::quantize<ranges>(make_model()); }

/// The prompt and the greedy generation from an empty `s` (`ctattn::generate_greedy`); `record(step, logits)` sees
/// every step's logits. Returns the number of generated ids (`generated` unless a step failed).
template <typename Record>
constexpr std::size_t generate(const int8_model& m, int8_state& s, int8_logits& logits,
                               std::uint16_t (&tokens)[generated], Record&& record) noexcept {
  s.clear();
  return ctattn::generate_greedy(m, s, logits, prompt, tokens, record).generated;
}

/// What a generation gives: the generated ids and every step's int8 logits.
struct generation {
  std::size_t made = 0;
  std::uint16_t tokens[generated]{};
  std::int8_t logits[steps][vocabulary]{};
};

/// The generation the compiler decodes (the int8 arithmetic's bits, the same on every backend).
inline constexpr generation expected = [] {
  const int8_model m = make_int8_model();
  int8_state s{};
  int8_logits row{};
  generation g{};
  g.made = generate(m, s, row, g.tokens, [&g](std::size_t step, const int8_logits& r) {
    for (std::size_t j = 0; j < vocabulary; ++j) g.logits[step][j] = r.elements[0][j];
  });
  return g;
}();
static_assert(expected.made == generated, "the compiler's generation must decode every step");

/// Whether the generated ids differ from one another at least `least` times in a row (a generation that says
/// something: not one id repeated).
constexpr bool ids_vary(std::size_t least) noexcept {
  std::size_t changes = 0;
  for (std::size_t t = 1; t < generated; ++t)
    changes += expected.tokens[t] != expected.tokens[t - 1] ? std::size_t{1} : std::size_t{0};
  return changes >= least;
}
static_assert(ids_vary(4), "the small llama's weights must give a generation whose ids change");

}  // namespace ctattn_firmware::models::small_llama

#endif  // CTATTN_FIRMWARE_MODELS_SMALL_LLAMA_HPP
