// Rule: a dimension is an integer size or a named extent (a class derived from ctattn::dimension<"...">).
// expected-error: ctattn: a matrix dimension must be an integer
// expected-rule: shape_error::dimension_must_be_a_size_or_a_named_extent<ctattn::op::matrix,
#include <ctattn/ctattn.hpp>

#include <cstddef>

// The mistake: an axis type that forgot to derive from ctattn::dimension.
struct tokens {
  std::size_t size;
};
struct seq : ctattn::dimension<"seq"> {};

#ifdef CTATTN_COMPILE_FAIL
ctattn::matrix<float, tokens{2}, 4> x{};  // <- mistake
#else
ctattn::matrix<float, seq{2}, 4> x{};
#endif
