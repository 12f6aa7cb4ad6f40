// The names the doc examples of ctattn/position/alibi.hpp use without defining them: the worked example's
// dimension names.
#pragma once

#include "doc_examples/worked_example.hpp"
