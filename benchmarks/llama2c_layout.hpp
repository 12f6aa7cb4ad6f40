#ifndef CTATTN_BENCHMARKS_LLAMA2C_LAYOUT_HPP
#define CTATTN_BENCHMARKS_LLAMA2C_LAYOUT_HPP

/// \file
/// The tiny llama's weights (firmware/models/tiny_llama.hpp) in llama2.c's checkpoint layout, for the benchmarks that
/// run llama2.c's run.c beside ctattn on the same model (benchmarks/firmware/tiny_llama_llama2c.cpp on the boards,
/// benchmarks/bench_llama_speed.cpp on the host): after run.c's header, the token embedding, then each kind of
/// tensor for every layer together (attention norms, wq, wk, wv, wo, ffn norms, w1, w2, w3), then the final norm;
/// the classifier shared with the embedding (llama2.c's default).
///
/// | entity                         | what                                                      |
/// |--------------------------------|-----------------------------------------------------------|
/// | `llama2c_floats`               | 260,032: the checkpoint's floats after its header          |
/// | `llama2c_offset(name)`         | where parameter `name` (ctattn's state_dict name) starts   |
/// | `to_llama2c(model, out)`       | writes the model's parameters into out[0, llama2c_floats)  |
/// | `llama2c_shape`                | run.c's Config: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len |
/// | `llama2c_generate(forward, ids, record)` | the tiny llama's generation by llama2.c's `forward` (run.c's or runq.c's) |
///
/// Example: `static float w[ctattn_bench::llama2c_floats]; ctattn_bench::to_llama2c(model, w);`

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../firmware/models/tiny_llama.hpp"

namespace ctattn_bench {

namespace tiny_llama = ctattn_firmware::models::tiny_llama;

namespace detail {
inline constexpr std::size_t dim = tiny_llama::width;
inline constexpr std::size_t hidden = tiny_llama::hidden;
inline constexpr std::size_t kv_dim = tiny_llama::key_value_heads * (dim / tiny_llama::heads);
struct section {
  std::string_view name;
  std::size_t floats;
};
inline constexpr std::array<section, 9> layer_sections{{{"attention_norm.weight", dim},
                                                        {"attention.wq.weight", dim* dim},
                                                        {"attention.wk.weight", kv_dim* dim},
                                                        {"attention.wv.weight", kv_dim* dim},
                                                        {"attention.wo.weight", dim* dim},
                                                        {"ffn_norm.weight", dim},
                                                        {"feed_forward.w1.weight", hidden* dim},
                                                        {"feed_forward.w2.weight", dim* hidden},
                                                        {"feed_forward.w3.weight", hidden* dim}}};
inline constexpr std::size_t embedding_floats = tiny_llama::vocabulary * dim;
}  // namespace detail

inline constexpr std::size_t llama2c_floats = [] {
  std::size_t n = detail::embedding_floats + detail::dim;
  for (const auto& s : detail::layer_sections) n += tiny_llama::layers * s.floats;
  return n;
}();
static_assert(llama2c_floats == 260'032, "every parameter of the tiny llama has its place in the checkpoint");

/// run.c's Config for the tiny llama, its seq_len the decode state's capacity.
inline constexpr std::array<int, 7> llama2c_shape{static_cast<int>(detail::dim),
                                                  static_cast<int>(detail::hidden),
                                                  static_cast<int>(tiny_llama::layers),
                                                  static_cast<int>(tiny_llama::heads),
                                                  static_cast<int>(tiny_llama::key_value_heads),
                                                  static_cast<int>(tiny_llama::vocabulary),
                                                  static_cast<int>(tiny_llama::capacity)};

/// Where parameter `name` starts in the checkpoint's floats; llama2c_floats for a name outside the layout.
constexpr std::size_t llama2c_offset(std::string_view name) noexcept {
  if (name == "tok_embeddings.weight") return 0;
  if (name == "norm.weight") return llama2c_floats - detail::dim;
  if (!name.starts_with("layers.")) return llama2c_floats;
  name.remove_prefix(std::string_view{"layers."}.size());
  std::size_t layer = 0;
  while (!name.empty() && name.front() != '.') {
    layer = layer * 10 + static_cast<std::size_t>(name.front() - '0');
    name.remove_prefix(1);
  }
  if (name.empty()) return llama2c_floats;
  name.remove_prefix(1);
  std::size_t offset = detail::embedding_floats;
  for (const auto& s : detail::layer_sections) {
    if (s.name == name) return offset + layer * s.floats;
    offset += tiny_llama::layers * s.floats;
  }
  return llama2c_floats;
}

/// Writes `m`'s parameters into out[0, llama2c_floats). A name outside the layout writes past the array's end: in a
/// constant expression (the firmware image's table) the build fails.
template <typename Out>
constexpr void to_llama2c(const tiny_llama::model& m, Out& out) noexcept {
  ctattn::for_each_parameter(m, [&](std::string_view name, const auto& view) {
    const std::size_t offset = llama2c_offset(name);
    for (std::size_t k = 0; k < view.size; ++k) out[offset + k] = view[k];
  });
}

/// The steps of `tiny_llama::generate` by llama2.c's `forward(token, pos)`: the prompt, then each greedy id (the first
/// largest logit, llama2.c's sample_argmax) fed back; `record(step, logits)` sees each step's logits. Returns the
/// number of ids written into `tokens`.
template <typename Record>
std::size_t llama2c_generate(const float* (*forward)(int, int), std::uint16_t* tokens, Record&& record) noexcept {
  int token = tiny_llama::prompt[0];
  std::size_t made = 0;
  for (std::size_t step = 0; step < tiny_llama::steps; ++step) {
    const float* logits = forward(token, static_cast<int>(step));
    record(step, logits);
    if (step + 1 < tiny_llama::prompt_length) {
      token = tiny_llama::prompt[step + 1];
    } else {
      std::size_t best = 0;
      for (std::size_t j = 1; j < tiny_llama::vocabulary; ++j) best = logits[j] > logits[best] ? j : best;
      token = static_cast<int>(best);
      tokens[made++] = static_cast<std::uint16_t>(best);
    }
  }
  return made;
}

}  // namespace ctattn_bench

#endif  // CTATTN_BENCHMARKS_LLAMA2C_LAYOUT_HPP
