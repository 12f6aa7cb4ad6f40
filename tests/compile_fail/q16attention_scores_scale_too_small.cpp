// Rule: 16x8 attention's scores scale must leave TFLite's BATCH_MATMUL multiplier below 2^7
// expected-error: ctattn: TFLite's 16x8 arithmetic cannot take these scales \(the operation and quantizations below\)
// expected-rule: shape_error::int16_scales_must_suit_the_kernel<ctattn::op::int16_attention, false,
#include <ctattn/quantized/q16attention.hpp>

inline constexpr ctattn::quantization q_x16{0.0005}, q_tiny_scores{1e-12}, q_scores16{0.0003}, q_out16{0.0004};
inline const ctattn::q16matrix<3, 4, q_x16> x16{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::scaled_dot_product_attention<q_tiny_scores, q_out16>(x16, x16, x16);  // <- mistake
#else
  const auto y = ctattn::scaled_dot_product_attention<q_scores16, q_out16>(x16, x16, x16);
#endif
  return y(0, 0);
}
