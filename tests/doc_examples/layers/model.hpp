// The names the doc examples of ctattn/layers/model.hpp use without defining them: the verified sorter's encoder
// layer.
#pragma once

#include <ctattn/layers.hpp>

using block = ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true>;
