// The names the doc examples of ctattn/layers/transformer.hpp use without defining them: target and encoder
// sequences of width 32 (6 and 8 tokens), a decoder layer, the target's tokens as rows and an output row.
#pragma once

#include <ctattn/layers.hpp>

#include <array>

inline constexpr ctattn::matrix<float, 6, 32> x{}, tgt{};
inline constexpr ctattn::matrix<float, 8, 32> memory{};
inline constexpr ctattn::transformer_decoder_layer<float, 32, 4, 64> layer{};
inline constexpr std::array<ctattn::matrix<float, 1, 32>, 6> tokens{};
inline ctattn::matrix<float, 1, 32> y_t{};
