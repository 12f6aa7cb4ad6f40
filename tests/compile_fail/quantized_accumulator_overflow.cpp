// Rule: an int8 product's K terms fit its int32 sums (K <= 33025)
// expected-error: ctattn: an int8 product sums its K terms of up to 255 x 255 in an int32
// expected-rule: shape_error::int8_accumulator_must_not_overflow<ctattn::op::quantized_multiply, ctattn::count<40000(UL)?>, ctattn::count<33025(UL)?> ?>
#include <ctattn/quantized/multiply.hpp>

inline constexpr ctattn::quantization q{0.05, 0};
inline const ctattn::qmatrix<1, 40000, q> long_row{};
inline const ctattn::qmatrix<40000, 1, q> long_column{};
inline const ctattn::qmatrix<1, 30000, q> row{};
inline const ctattn::qmatrix<30000, 1, q> column{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::multiply<q>(long_row, long_column);  // <- mistake
#else
  (void)ctattn::multiply<q>(row, column);
#endif
}
