// The verified sorter in int8: the float model (sorter.hpp) quantized by the compiler with the activations'
// quantizations from the ranges the library recorded (record_sorter_ranges.cpp wrote sorter_ranges.hpp), read by
// name. Integers only at run time, the same bits in static_assert, on the host and on a microcontroller without an
// FPU.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include <ctattn/quantized/transformer.hpp>

#include "sorter.hpp"
#include "sorter_ranges.hpp"

namespace toy {


/// The sorter in int8: embedding tables -> two int8 pre-norm encoder layers -> integer LayerNorm -> per-channel
/// head, one row of int8 logits per position.
///
/// | operand  | shape                                    |
/// |----------|------------------------------------------|
/// | `digits` | six ids in 0..9                          |
/// | result   | `qmatrix<6, 10, q_logits>`: int8 logits  |
struct int8_sorter : ctattn::model<int8_sorter> {
  // The quantizations, from the ranges record_sorter_ranges.cpp recorded, by name (sorter_ranges.hpp).
  static constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(sorter_ranges, name));
  };
  static constexpr ctattn::quantization q_tokens = q_of("embed.weight");
  static constexpr ctattn::quantization q_positions = q_of("pos.weight");
  static constexpr ctattn::encoder_layer_quantizations q0 =
      ctattn::encoder_layer_quantizations_for(ctattn::encoder_layer_ranges_at(sorter_ranges, "layers.0", "pos"));
  static constexpr ctattn::encoder_layer_quantizations q1 =
      ctattn::encoder_layer_quantizations_for(ctattn::encoder_layer_ranges_at(sorter_ranges, "layers.1", "layers.0"));
  static constexpr ctattn::quantization q_norm = q_of("norm");
  static constexpr ctattn::quantization q_logits = q_of("head");

  BOOST_HANA_DEFINE_STRUCT(int8_sorter,
                           (ctattn::qembedding<digits, length, width, q_tokens, q_positions, q0.input>, embed),
                           (decltype(ctattn::quantize_encoder_layer<q0>(block{})), layer0),
                           (decltype(ctattn::quantize_encoder_layer<q1>(block{})), layer1),
                           (ctattn::qlayer_norm<width, q1.output, q_norm>, norm),
                           (ctattn::qlinear<width, digits, q_norm, q_logits>, head));
};

/// The memory of one int8 inference (ctattn::footprint), derived as the float sorter's is: the model's object (int8
/// weights, folded biases, multipliers and tables: flash when constexpr), the ids, the logits, and on the stack the
/// intermediate activations with the deepest layer's scratch.
inline constexpr ctattn::footprint int8_sorter_footprint = ctattn::layer_footprint<int8_sorter, digit_ids>;

// What int8 buys on a microcontroller, checked by the compiler: less flash for the weights and less RAM for one
// inference than the float sorter.
static_assert(int8_sorter_footprint.weight_bytes < sorter_footprint.weight_bytes,
              "the int8 sorter must take less flash than the float one");
static_assert(int8_sorter_footprint.ram_bytes() < sorter_footprint.ram_bytes(),
              "the int8 sorter must take less RAM than the float one");
static_assert(int8_sorter_footprint.weight_bytes == sizeof(int8_sorter));

/// The float sorter quantized by the compiler: every linear per channel, every LayerNorm in integers, GELU as a
/// table, the embedding tables per tensor.
constexpr int8_sorter quantize_sorter(const sorter& model) noexcept {
  int8_sorter q{};
  q.embed = ctattn::quantize_embedding<int8_sorter::q_tokens, int8_sorter::q_positions, int8_sorter::q0.input>(
      model.embed, model.pos);
  q.layer0 = ctattn::quantize_encoder_layer<int8_sorter::q0>(boost::hana::at_c<0>(model.layers.layers));
  q.layer1 = ctattn::quantize_encoder_layer<int8_sorter::q1>(boost::hana::at_c<1>(model.layers.layers));
  q.norm = ctattn::quantize_layer_norm<int8_sorter::q1.output, int8_sorter::q_norm>(model.norm);
  q.head = ctattn::quantize_linear<int8_sorter::q_norm, int8_sorter::q_logits>(model.head);
  return q;
}

}  // namespace toy
