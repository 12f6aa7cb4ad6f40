// Rule: TFLite's QUANTIZE between int8 and int16 shifts each value by in_scale / out_scale, which stays below 2^15 so
// that the shifted value fits an int32
// expected-error: ctattn: TFLite's 16x8 arithmetic cannot take these scales
// expected-rule: shape_error::int16_scales_must_suit_the_kernel<ctattn::op::int16_conversion, false, ctattn::quantization_constant<
#include <ctattn/quantized/q16matrix.hpp>

inline constexpr ctattn::quantization q8{0.05, -3};
inline const ctattn::qmatrix<2, 3, q8> x{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  // 0.05 / 1e-6 is 50,000, above 2^15
  (void)ctattn::quantize<ctattn::quantization{1e-6}, std::int16_t>(x);  // <- mistake
#else
  (void)ctattn::quantize<ctattn::quantization{1e-4}, std::int16_t>(x);
#endif
}
