// Built with -fno-exceptions -fno-rtti: the core headers must compile so, and must not bring in iostream.
#include <ctattn/ctattn.hpp>

#if defined(_GLIBCXX_IOSTREAM) || defined(_GLIBCXX_OSTREAM) || defined(_LIBCPP_IOSTREAM) || defined(_LIBCPP_OSTREAM)
#error "the core headers must not include <iostream> or <ostream>; host-only helpers live in ctattn/host/"
#endif
#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "this check must be built with -fno-exceptions -fno-rtti"
#endif

namespace {
[[maybe_unused]] constexpr ctattn::matrix<float, 2, 2> identity{{{1, 0}, {0, 1}}};
static_assert(ctattn::multiply(identity, identity) == identity);
}  // namespace
