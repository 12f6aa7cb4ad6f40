// The verified model: a two-layer transformer encoder trained in PyTorch to sort six digits
// (examples/verified_model/train_sorter.py defines the same module). Its parameters carry the PyTorch module's
// state_dict names, so the trained .safetensors file loads into it by name.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <ctattn/layers.hpp>

namespace toy {

inline constexpr std::size_t length = 6;  // digits per sequence
inline constexpr std::size_t digits = 10;
inline constexpr std::size_t width = 32;  // d_model

using block = ctattn::transformer_encoder_layer<float, width, 4, 64, ctattn::gelu, /*norm_first=*/true>;

/// embed + learned positions -> two encoder layers -> LayerNorm -> Linear(32, 10): one row of logits per position.
///
/// | operand  | shape                      |
/// |----------|----------------------------|
/// | `digits` | six ids in 0..9            |
/// | result   | 6 x 10 logits              |
struct sorter {
  ctattn::token_embedding<float, digits, width> embed{};
  ctattn::position_embedding<float, length, width> pos{};
  ctattn::sequential<block, block> layers{};
  ctattn::layer_norm<float, width> norm{};
  ctattn::linear<float, width, digits, ctattn::out_by_in, true> head{};

  template <typename... Options>
  [[nodiscard]] constexpr ctattn::matrix<float, length, digits> forward(const std::array<int, length>& ids,
                                                                        const Options&... options) const noexcept {
    const auto x = ctattn::forward(pos, embed.forward(ids));
    return ctattn::forward(head, ctattn::forward(norm, ctattn::forward(layers, x, options...), options...), options...);
  }

  /// The memory of one inference (ctattn::footprint): the model's object (weights, in flash when constexpr),
  /// the six ids, the logits, and on the stack the four intermediate activations of `forward` and the deepest
  /// layer's own (`ctattn::composed` of the five calls). Firmware checks it against its budget with static_assert.
  static constexpr ctattn::footprint footprint = [] {
    using x = ctattn::matrix<float, length, width>;
    return ctattn::composed(ctattn::layer_footprint<decltype(embed), std::array<int, length>>,
                            ctattn::layer_footprint<decltype(pos), x>, ctattn::layer_footprint<decltype(layers), x>,
                            ctattn::layer_footprint<decltype(norm), x>, ctattn::layer_footprint<decltype(head), x>);
  }();

  // The parameters under the PyTorch module's names: embed.weight, pos.weight, layers.0.self_attn.in_proj_weight,
  // ..., norm.weight, norm.bias, head.weight, head.bias.
  template <typename Self>
    requires std::is_same_v<std::remove_const_t<Self>, sorter>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(ctattn::sublayer("embed", self.embed), ctattn::sublayer("pos", self.pos),
                                   ctattn::sublayer("layers", self.layers), ctattn::sublayer("norm", self.norm),
                                   ctattn::sublayer("head", self.head));
  }
};

/// The model's answer: the most likely digit at each position (the first of equal logits), from float logits or
/// from the int8 model's (int8_sorter.hpp).
template <typename Logits>
constexpr std::array<int, length> answer(const Logits& logits) noexcept {
  std::array<int, length> result{};
  for (std::size_t i = 0; i < length; ++i) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < digits; ++c) {
      if (logits(i, c) > logits(i, best)) best = c;
    }
    result[i] = static_cast<int>(best);
  }
  return result;
}

/// The right answer: the digits in ascending order.
constexpr std::array<int, length> sorted(std::array<int, length> ids) noexcept {
  for (std::size_t i = 1; i < length; ++i) {
    for (std::size_t j = i; j > 0 && ids[j - 1] > ids[j]; --j) {
      const int t = ids[j];
      ids[j] = ids[j - 1];
      ids[j - 1] = t;
    }
  }
  return ids;
}

}  // namespace toy
