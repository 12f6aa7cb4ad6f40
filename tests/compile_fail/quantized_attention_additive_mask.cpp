// Rule: an int8 attention's mask hides keys; it adds no real-valued bias to the int8 scores
// expected-error: ctattn: int8 attention takes masks that hide keys
// expected-rule: shape_error::int8_mask_must_hide_keys<ctattn::op::quantized_attention, ctattn::additive_bias_mask<float, 5(UL)?, 7(UL)?> ?>
#include <ctattn/quantized/attention.hpp>

inline constexpr ctattn::quantization q8{0.05, 0};
inline const ctattn::qmatrix<5, 8, q8> queries{};
inline const ctattn::qmatrix<7, 8, q8> keys{};
inline const ctattn::qmatrix<7, 4, q8> values{};
inline const ctattn::matrix<float, 5, 7> bias{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::scaled_dot_product_attention<q8, q8>(queries, keys, values, ctattn::additive_bias(bias));  // <- mistake
#else
  (void)ctattn::scaled_dot_product_attention<q8, q8>(queries, keys, values, ctattn::causal);
#endif
}
