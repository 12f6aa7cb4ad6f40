// The names the doc examples of ctattn/attention/rules.hpp use without defining them: the worked example's
// dimensions.
#pragma once

#include "doc_examples/worked_example.hpp"
