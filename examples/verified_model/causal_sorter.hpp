// The decoder-only model of examples/verified_model/: two causal transformer layers trained in PyTorch
// (train_sorter.py, `CausalSorter`) to write six digits sorted, one token at a time, after the digits and a
// separator. Decoded greedily with a key/value cache per layer (decode.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <ctattn/layers.hpp>

namespace toy {

inline constexpr int separator = 10;
inline constexpr std::size_t causal_vocabulary = 11;  // the digits and the separator
inline constexpr std::size_t causal_length = 13;      // six digits, the separator, six sorted digits

using causal_block =
    ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, /*norm_first=*/true, ctattn::causal_mask>;

/// embed + learned positions -> two causal encoder layers -> LayerNorm -> Linear(32, 11).
///
/// | operation                  | shape                                                     |
/// |----------------------------|-----------------------------------------------------------|
/// | `forward(ids)`             | n token ids (n <= 13) -> n x 11 logits, causal            |
/// | `step(token, state, out)`  | one token at position `state.length()` -> 1 x 11 logits   |
/// | `sort(digits)`             | six digits -> six digits, greedy decoding with the caches |
struct causal_sorter : ctattn::model<causal_sorter> {
  BOOST_HANA_DEFINE_STRUCT(causal_sorter, (ctattn::token_embedding<float, causal_vocabulary, 32>, embed),
                           (ctattn::position_embedding<float, causal_length, 32>, pos),
                           (ctattn::sequential<causal_block, causal_block>, layers),
                           (ctattn::layer_norm<float, 32>, norm),
                           (ctattn::linear<float, 32, causal_vocabulary, ctattn::out_by_in, true>, head));

  using logits_row = ctattn::matrix<float, 1, causal_vocabulary>;

  /// The keys and values of every layer for the tokens so far.
  struct state {
    std::array<ctattn::kv_cache<float, causal_length, 32>, 2> caches{};
    [[nodiscard]] constexpr std::size_t length() const noexcept { return caches[0].length; }
  };

  /// The next token's logits after `token`, which takes position state.length(); false when the caches are full.
  template <typename... Options>
  [[nodiscard]] constexpr bool step(int token, state& s, logits_row& out, const Options&... options) const noexcept {
    if (s.length() >= causal_length) return false;
    const auto x = ctattn::add_position_embeddings(embed.forward(std::array<int, 1>{token}), pos.weight, s.length());
    ctattn::matrix<float, 1, 32> h{};
    if (!boost::hana::at_c<0>(layers.layers).step(x, s.caches[0], h, options...)) return false;
    ctattn::matrix<float, 1, 32> y{};
    if (!boost::hana::at_c<1>(layers.layers).step(h, s.caches[1], y, options...)) return false;
    out = ctattn::forward(head, ctattn::forward(norm, y, options...), options...);
    return true;
  }

  /// The digits sorted by greedy decoding: the prompt (digits and separator) fills the caches token by token,
  /// then each most likely digit is fed back.
  template <typename... Options>
  [[nodiscard]] constexpr std::array<int, 6> sort(const std::array<int, 6>& digits,
                                                  const Options&... options) const noexcept {
    state s{};
    logits_row logits{};
    for (const int d : digits) (void)step(d, s, logits, options...);
    (void)step(separator, s, logits, options...);
    std::array<int, 6> answer{};
    for (std::size_t i = 0; i < 6; ++i) {
      answer[i] = most_likely_digit(logits);
      if (i + 1 < 6) (void)step(answer[i], s, logits, options...);
    }
    return answer;
  }

  /// The digit (not the separator) with the largest logit: greedy decoding's choice.
  [[nodiscard]] static constexpr int most_likely_digit(const logits_row& logits) noexcept {
    int best = 0;
    for (int c = 1; c < 10; ++c) {
      if (logits(0, static_cast<std::size_t>(c)) > logits(0, static_cast<std::size_t>(best))) best = c;
    }
    return best;
  }
};

}  // namespace toy
