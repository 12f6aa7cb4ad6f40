// Rule: every dimension has at least one entry.
// expected-error: ctattn: a matrix dimension must have at least
// expected-rule: shape_error::extent_must_have_an_entry<ctattn::op::matrix, ctattn::dim<ctattn::unnamed, 0> ?>
#include <ctattn/ctattn.hpp>

#ifdef CTATTN_COMPILE_FAIL
ctattn::matrix<float, 0, 4> empty{};  // <- mistake
#else
ctattn::matrix<float, 1, 4> one_row{};
#endif
