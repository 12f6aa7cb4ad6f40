// Rule: an int8 sum adds matrices of one shape
// expected-error: ctattn: the operands must have matching columns
// expected-rule: shape_error::columns_must_match<ctattn::op::quantized_add, ctattn::dim<ctattn::unnamed, 8>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/quantized/add.hpp>

inline constexpr ctattn::quantization q{0.05, 0};
inline const ctattn::qmatrix<3, 8, q> x{};
inline const ctattn::qmatrix<3, 6, q> narrow{};
inline const ctattn::qmatrix<3, 8, q> attended{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::add<q>(x, narrow);  // <- mistake
#else
  (void)ctattn::add<q>(x, attended);
#endif
}
