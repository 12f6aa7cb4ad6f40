// Rule: in an int8 product a * b the columns of a match the rows of b
// expected-error: ctattn: in a product a \* b the columns of a must match the rows of b
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::quantized_multiply, ctattn::dim<ctattn::unnamed, 4>, ctattn::dim<ctattn::unnamed, 5> ?>
#include <ctattn/quantized/multiply.hpp>

inline constexpr ctattn::quantization q{0.05, 0};
inline const ctattn::qmatrix<3, 4, q> a{};
inline const ctattn::qmatrix<5, 2, q> b_wrong{};
inline const ctattn::qmatrix<4, 2, q> b{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::multiply<q>(a, b_wrong);  // <- mistake
#else
  (void)ctattn::multiply<q>(a, b);
#endif
}
