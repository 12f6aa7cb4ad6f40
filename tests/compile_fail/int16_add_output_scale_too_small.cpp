// Rule: TFLite's int16 ADD needs an output scale above 2 max(a_scale, b_scale) / 32768 (its output multiplier
// below 1); TFLite refuses a model with a smaller one
// expected-error: ctattn: TFLite's 16x8 arithmetic cannot take these scales
// expected-rule: shape_error::int16_scales_must_suit_the_kernel<ctattn::op::int16_add, false, ctattn::quantization_constant<
#include <ctattn/quantized/int16.hpp>

inline constexpr ctattn::quantization q_a{0.001}, q_b{0.0005};
inline const ctattn::q16matrix<2, 3, q_a> a{};
inline const ctattn::q16matrix<2, 3, q_b> b{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  // 2 x 0.001 / 32768 is 6.1e-8
  (void)ctattn::add<ctattn::quantization{5e-8}>(a, b);  // <- mistake
#else
  (void)ctattn::add<ctattn::quantization{0.002}>(a, b);
#endif
}
