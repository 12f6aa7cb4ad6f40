// Rule: int4 weights given as values lie in [-8, 7]; a value outside stops the build rather than being wrapped
// (a value is not a type, so the compiler names the check's function, not a static_assert sentence: GCC on the first
// error line, Clang in the note under its first)
// expected-error: (int4_weight_must_be_between_minus_8_and_7|must be initialized by a constant expression)
// expected-rule: int4_weight_must_be_between_minus_8_and_7
#include <ctattn/quantized/weights.hpp>

int use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr auto w = ctattn::int4_weights<1, 3>::from_values({{1, 9, 3}});  // <- mistake
#else
  constexpr auto w = ctattn::int4_weights<1, 3>::from_values({{1, -8, 7}});
#endif
  return w.packed[0] + w.packed[1];
}
