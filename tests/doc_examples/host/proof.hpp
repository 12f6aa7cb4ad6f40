// The names the doc examples of ctattn/host/proof.hpp use without defining them: a model (a linear layer and a
// ReLU) and its golden inputs, and what they call from the standard library.
#pragma once

#include <ctattn/layers.hpp>

#include <array>
#include <cstdio>

struct doc_model : ctattn::model<doc_model> {
  BOOST_HANA_DEFINE_STRUCT(doc_model, (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, head),
                           (ctattn::relu, act));
};
inline doc_model model{};
inline std::array<ctattn::matrix<float, 3, 4>, 2> golden_inputs{};
