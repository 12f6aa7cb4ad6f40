// Rule: the sinusoidal encoding's base is larger than 1 (10000 in the reference text)
// expected-error: ctattn: the base of the frequencies must be
// expected-rule: shape_error::base_must_be_larger_than_one<ctattn::op::sinusoidal_encoding, ctattn::count<1> ?>
#include <ctattn/ctattn.hpp>

#include <array>

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::sinusoidal_position_encoding<float, 4, 8, 1>()(1, 0);  // <- mistake
#else
  const auto r = ctattn::sinusoidal_position_encoding<float, 4, 8, 10000>()(1, 0);
#endif
  return r;
}
