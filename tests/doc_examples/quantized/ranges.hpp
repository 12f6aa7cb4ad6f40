// The names the doc examples of ctattn/quantized/ranges.hpp use without defining them: a small model on token ids and
// two sample inputs.
#pragma once

#include <array>

#include <ctattn/layers.hpp>

struct doc_model : ctattn::model<doc_model> {
  BOOST_HANA_DEFINE_STRUCT(doc_model, (ctattn::token_embedding<float, 10, 8>, embed),
                           (ctattn::position_embedding<float, 4, 8>, pos),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};
inline constexpr doc_model model{};
inline constexpr std::array<std::array<int, 4>, 2> samples{{{1, 2, 3, 4}, {9, 0, 0, 7}}};
