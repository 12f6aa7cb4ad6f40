// Rule: the rotary table's base is larger than 1
// expected-error: ctattn: the base of the frequencies must be
// expected-rule: shape_error::base_must_be_larger_than_one<ctattn::op::rotary_embedding, ctattn::count<1> ?>
#include <ctattn/ctattn.hpp>

#include <array>

float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::make_rotary_table<float, 4, 8, 1>().cos_table(1, 0);  // <- mistake
#else
  const auto r = ctattn::make_rotary_table<float, 4, 8, 10000>().cos_table(1, 0);
#endif
  return r;
}
