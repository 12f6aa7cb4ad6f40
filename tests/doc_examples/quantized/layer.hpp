// The names the doc examples of ctattn/quantized/layer.hpp use without defining them: those of
// ctattn/quantized/transformer.hpp's examples (a model of two pre-norm encoder layers of width 32, 6 tokens in int8),
// and the quantizations of the first layer.
#pragma once

#include <ctattn/quantized/transformer.hpp>

#include "doc_examples/quantized/transformer.hpp"

inline constexpr ctattn::encoder_layer_quantizations q0 = ctattn::encoder_layer_quantizations_for(ranges0);
