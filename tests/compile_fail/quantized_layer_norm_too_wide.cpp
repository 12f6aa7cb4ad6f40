// Rule: int8 LayerNorm's fixed point holds rows of at most 16384 values
// expected-error: ctattn: int8 and int16 LayerNorm hold each normalized value, up to sqrt\(C - 1\) in magnitude \(sqrt\(C\) for RMSNorm\), with 24
// expected-rule: shape_error::int8_layer_norm_must_not_overflow<ctattn::op::quantized_layer_norm, ctattn::count<20000(UL)?>, ctattn::count<16384(UL)?> ?>
#include <ctattn/quantized/norm.hpp>

#include <ctattn/layers/norm.hpp>  // the float layer it is quantized from

inline constexpr ctattn::quantization q_in{0.05, 3}, q_out{0.03, 0};
inline const ctattn::layer_norm<float, 20000, false> too_wide{};
inline const ctattn::layer_norm<float, 16384, false> widest{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::quantize_layer_norm<q_in, q_out>(too_wide);  // <- mistake
#else
  (void)ctattn::quantize_layer_norm<q_in, q_out>(widest);
#endif
}
