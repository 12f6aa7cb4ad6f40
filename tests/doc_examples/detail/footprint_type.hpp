// The names the doc examples of ctattn/detail/footprint_type.hpp use without defining them: the worked example,
// and a model of two encoder layers, a LayerNorm and a linear head (the verified model's shape) with its input
// type X.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/attention/footprint.hpp>
#include <ctattn/layers.hpp>

struct doc_model {
  using block = ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true>;
  ctattn::sequential<block, block> layers{};
  ctattn::layer_norm<float, 32> norm{};
  ctattn::linear<float, 32, 32, ctattn::out_by_in, true> head{};
};
inline constexpr doc_model model{};
using X = ctattn::matrix<float, 6, 32>;
