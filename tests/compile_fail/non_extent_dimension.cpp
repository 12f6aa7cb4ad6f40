// Rule: a dimension is an integer size or a named extent (a class derived from ctattn::dimension<"...">).
// expected-error: a matrix dimension must be an integer size or a named extent
#include <ctattn/ctattn.hpp>

#include <cstddef>

// The mistake: an axis type that forgot to derive from ctattn::dimension.
struct tokens {
  std::size_t size;
};
struct seq : ctattn::dimension<"seq"> {};

#ifdef CTATTN_COMPILE_FAIL
ctattn::matrix<float, tokens{2}, 4> x{};
#else
ctattn::matrix<float, seq{2}, 4> x{};
#endif
