// The names the doc examples of ctattn/shape/dimension.hpp use without defining them: the worked example (its
// dimension names, and x: seq{6} x d_model{16}), the matrix and the column split and join.
#pragma once

#include "doc_examples/worked_example.hpp"

#include <ctattn/matrix/blocks.hpp>
#include <ctattn/matrix/matrix.hpp>
