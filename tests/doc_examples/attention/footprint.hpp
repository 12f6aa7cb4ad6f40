// The names the doc examples of ctattn/attention/footprint.hpp use without defining them: the worked example.
#pragma once

#include "doc_examples/worked_example.hpp"
