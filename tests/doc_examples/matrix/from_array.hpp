// The names the doc examples of ctattn/matrix/from_array.hpp use without defining them: the worked example's
// dimension names, and host code that reads weights from a file.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <cstdio>
#include <vector>

inline constexpr const char* file = "weights.bin";
inline std::vector<float> read_weights(const char*) { return std::vector<float>(16 * 24); }
