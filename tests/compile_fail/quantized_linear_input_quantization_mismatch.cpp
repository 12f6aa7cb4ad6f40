// Rule: an int8 layer's input is quantized as the layer was quantized for
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_projection, ctattn::quantization_constant<
#include <ctattn/quantized/linear.hpp>

inline constexpr ctattn::quantization q_in{0.02, -5}, q_other{0.03, -5}, q_out{0.05, 3};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{};
inline constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
inline const ctattn::qmatrix<1, 3, q_other> other_x{};
inline const ctattn::qmatrix<1, 3, q_in> x{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::project(other_x, head_q);  // <- mistake
#else
  (void)ctattn::project(x, head_q);
#endif
}
