// Rule: the rotary table's base is larger than 1
// expected-error: rotary_table: Base must be larger than 1
#include <ctattn/ctattn.hpp>

#include <array>



float use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto r = ctattn::make_rotary_table<float, 4, 8, 1>().cos_table(1, 0);
#else
  const auto r = ctattn::make_rotary_table<float, 4, 8, 10000>().cos_table(1, 0);
#endif
  return r;
}
