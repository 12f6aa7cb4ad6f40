// The names the doc examples of ctattn/quantized/transformer.hpp use without defining them: a model of two pre-norm
// encoder layers of width 32 (the verified model's shape), the calibrated ranges of its first layer's activations,
// and 6 tokens in int8 quantized as that layer's input.
#pragma once

#include <ctattn/layers.hpp>

struct doc_model {
  using block = ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true>;
  ctattn::sequential<block, block> layers{};
};
inline constexpr doc_model model{};

inline constexpr ctattn::value_range r{-4, 4};
inline constexpr ctattn::encoder_layer_ranges ranges0{r, r, r, r, r, r, r, r, r, r, r, r, r, r};
inline constexpr ctattn::qmatrix<6, 32, ctattn::encoder_layer_quantizations_for(ranges0).input> x_q{};
