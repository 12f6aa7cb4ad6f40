// Rule: every dimension has at least one entry.
// expected-error: a matrix dimension must have at least one entry
#include <ctattn/ctattn.hpp>

#ifdef CTATTN_COMPILE_FAIL
ctattn::matrix<float, 0, 4> empty{};
#else
ctattn::matrix<float, 1, 4> one_row{};
#endif
