// The names the doc examples of ctattn/quantized/transformer.hpp use without defining them: a model of two pre-norm
// encoder layers of width 32 (the verified model's shape), the calibrated ranges of its first layer's activations,
// and 6 tokens in int8 quantized as that layer's input.
#pragma once

#include <array>

#include <ctattn/layers.hpp>

struct doc_model {
  using block = ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true>;
  ctattn::sequential<block, block> layers{};
};
inline constexpr doc_model model{};

inline constexpr ctattn::value_range r{-4, 4};
inline constexpr ctattn::encoder_layer_ranges ranges0{r, r, r, r, r, r, r, r, r, r, r, r, r, r};
inline constexpr ctattn::qmatrix<6, 32, ctattn::encoder_layer_quantizations_for(ranges0).input> x_q{};

// Decoding: a causal encoder layer and a decoder layer, quantized with placeholder quantizations, and int8 rows.
inline constexpr ctattn::encoder_layer_quantizations q_causal = ctattn::encoder_layer_quantizations_for(ranges0);
inline constexpr auto causal_layer_q = ctattn::quantize_encoder_layer<q_causal>(
    ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true, ctattn::causal_mask>{});
inline constexpr std::array<ctattn::qmatrix<1, 32, q_causal.input>, 3> tokens_q{};
inline constexpr ctattn::decoder_layer_quantizations q_decoder{};
inline constexpr auto decoder_q =
    ctattn::quantize_decoder_layer<q_decoder>(ctattn::transformer_decoder_layer<float, 32, 4, 64>{});
inline constexpr ctattn::qmatrix<5, 32, q_decoder.memory> memory_q{};
inline constexpr std::array<ctattn::qmatrix<1, 32, q_decoder.input>, 3> target_q{};
