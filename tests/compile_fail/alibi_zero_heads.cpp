// Rule: ALiBi slopes are defined for at least one head
// expected-error: alibi_slopes<T, Heads>\(\): Heads must be at least 1
#include <ctattn/ctattn.hpp>

#include <array>



float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::alibi_slopes<float, 0>().size() == 0 ? 0.0f : 1.0f;
#else
  const auto r = ctattn::alibi_slopes<float, 8>()[0];
#endif
  return r;
}
