// Rule: int8 queries and keys have one width d_k
// expected-error: ctattn: in a product a \* b the columns of a must match the rows of b
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::quantized_attention, ctattn::dim<ctattn::unnamed, 8>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/quantized/attention.hpp>

inline constexpr ctattn::quantization q8{0.05, 0};
inline const ctattn::qmatrix<5, 8, q8> queries{};
inline const ctattn::qmatrix<7, 6, q8> narrow_keys{};
inline const ctattn::qmatrix<7, 8, q8> keys{};
inline const ctattn::qmatrix<7, 4, q8> values{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::scaled_dot_product_attention<q8, q8>(queries, narrow_keys, values);  // <- mistake
#else
  (void)ctattn::scaled_dot_product_attention<q8, q8>(queries, keys, values);
#endif
}
