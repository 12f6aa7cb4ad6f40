// The names the doc examples of ctattn/host/svg.hpp use without defining them: the worked example, 3 x 3
// attention weights, the size of a table filled at run time, and std::cout.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/attention/attention_head.hpp>  // self_attention

#include <cstddef>
#include <iostream>

inline constexpr ctattn::matrix<float, 3, 3> weights{};
inline constexpr std::size_t rows = 3, cols = 4;
