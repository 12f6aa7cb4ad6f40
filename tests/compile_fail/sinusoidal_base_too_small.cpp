// Rule: the sinusoidal encoding's base is larger than 1 (10000 in the reference text)
// expected-error: sinusoidal_position_encoding: Base must be larger than 1
#include <ctattn/ctattn.hpp>

#include <array>



float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::sinusoidal_position_encoding<float, 4, 8, 1>()(1, 0);
#else
  const auto r = ctattn::sinusoidal_position_encoding<float, 4, 8, 10000>()(1, 0);
#endif
  return r;
}
