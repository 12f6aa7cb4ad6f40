// The names the doc examples of ctattn/matrix/with_extents.hpp use without defining them: the worked example's
// dimension names, and a 6 x 16 matrix whose dimensions are plain sizes.
#pragma once

#include "doc_examples/worked_example.hpp"

inline constexpr ctattn::matrix<float, 6, 16> plain_6_by_16{};
