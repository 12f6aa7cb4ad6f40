// Rule: a head split makes at least one part
// expected-error: Parts must be at least 1
#include <ctattn/ctattn.hpp>

#include <array>

inline const ctattn::matrix<float, 2, 8> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::split_columns<0>(x).size() == 0 ? 0.0f : 1.0f;
#else
  const auto r = ctattn::split_columns<2>(x)[0](0, 0);
#endif
  return r;
}
