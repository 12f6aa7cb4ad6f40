// Rule: an int8 LayerNorm normalizes rows of the width it was quantized for
// expected-error: ctattn: the operands must have matching columns
// expected-rule: shape_error::columns_must_match<ctattn::op::quantized_layer_norm, ctattn::dim<ctattn::unnamed, 16>, ctattn::dim<ctattn::unnamed, 32> ?>
#include <ctattn/quantized/norm.hpp>

#include <ctattn/layers/norm.hpp>  // the float layer it is quantized from

inline constexpr ctattn::quantization q_in{0.05, 3}, q_out{0.03, 0};
inline constexpr ctattn::layer_norm<float, 32> norm{};
inline constexpr auto norm_q = ctattn::quantize_layer_norm<q_in, q_out>(norm);
inline const ctattn::qmatrix<4, 16, q_in> narrow{};
inline const ctattn::qmatrix<4, 32, q_in> x{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::normalize(narrow, norm_q);  // <- mistake
#else
  (void)ctattn::normalize(x, norm_q);
#endif
}
