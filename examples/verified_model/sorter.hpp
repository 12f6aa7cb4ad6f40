// The verified model: a two-layer transformer encoder trained in PyTorch to sort six digits
// (examples/verified_model/train_sorter.py defines the same module). Its parameters carry the PyTorch module's
// state_dict names, so the trained .safetensors file loads into it by name.
#pragma once

#include <array>
#include <cstddef>

#include <ctattn/layers.hpp>

namespace toy {

inline constexpr std::size_t length = 6;  // digits per sequence
inline constexpr std::size_t digits = 10;
inline constexpr std::size_t width = 32;  // d_model

using block = ctattn::transformer_encoder_layer<float, width, 4, 64, ctattn::gelu, /*norm_first=*/true>;

/// embed + learned positions -> two encoder layers -> LayerNorm -> Linear(32, 10): one row of logits per position.
/// Declared once (ctattn::model): forward runs the members in this order, and the parameters carry the member
/// names, which are the PyTorch module's attribute names.
///
/// | operand  | shape                      |
/// |----------|----------------------------|
/// | `digits` | six ids in 0..9            |
/// | result   | 6 x 10 logits              |
struct sorter : ctattn::model<sorter> {
  BOOST_HANA_DEFINE_STRUCT(sorter, (ctattn::token_embedding<float, digits, width>, embed),
                           (ctattn::position_embedding<float, length, width>, pos),
                           (ctattn::sequential<block, block>, layers), (ctattn::layer_norm<float, width>, norm),
                           (ctattn::linear<float, width, digits, ctattn::out_by_in, true>, head));
};

/// Six digits: the sorter's input.
using digit_ids = std::array<int, length>;

/// The memory of one inference (ctattn::footprint): the model's object (weights, in flash when constexpr), the six
/// ids, the logits, and on the stack the intermediate activations and the deepest layer's own. Firmware checks it
/// against its budget with static_assert.
inline constexpr ctattn::footprint sorter_footprint = ctattn::layer_footprint<sorter, digit_ids>;

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

/// The number of logits that differ from a reference's, for the quantized models' logits (int8 or int16) against
/// the integers a Python reference computed: `want[i][c]` is position i's logit for digit c.
template <typename Logits, typename Value>
constexpr int differing(const Logits& logits, const Value (&want)[length][digits]) noexcept {
  int bad = 0;
  for (std::size_t i = 0; i < length; ++i) {
    for (std::size_t c = 0; c < digits; ++c) bad += logits(i, c) == want[i][c] ? 0 : 1;
  }
  return bad;
}

/// True when the logits are the reference's bit for bit and their answer sorts `ids`: what the quantized sorters'
/// proofs (int8_model.cpp, int16_model.cpp) and firmware images check on each golden input.
template <typename Logits, typename Value>
constexpr bool matches_reference(const Logits& logits, const Value (&want)[length][digits],
                                 const std::array<int, length>& ids) noexcept {
  return differing(logits, want) == 0 && answer(logits) == sorted(ids);
}

}  // namespace toy
