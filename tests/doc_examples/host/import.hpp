// The names the doc examples of ctattn/host/import.hpp use without defining them: a model (one encoder layer of
// width 32) and its type, and what they call from the standard library.
#pragma once

#include <ctattn/layers/transformer.hpp>

#include <cstdio>
#include <fstream>
#include <memory>

using my_model = ctattn::transformer_encoder_layer<float, 32, 4, 64>;
inline my_model model{};
