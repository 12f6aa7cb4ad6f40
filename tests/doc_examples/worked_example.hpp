// The reference text's worked example under the names the doc examples give it: seq, d_model, d_k, d_v, x (6
// tokens of width 16), head_type and head (d_k 24, d_v 28). Shared by the contexts of tests/doc_examples/, and not
// a context itself (there is no header ctattn/worked_example.hpp).
#pragma once

#include "support/worked_example.hpp"

using namespace ctattn_test::worked;
