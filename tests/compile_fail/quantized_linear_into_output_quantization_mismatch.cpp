// Rule: an int8 layer writing into the caller's matrix: that matrix has the layer's output quantization
// expected-error: ctattn: the int8 output matrix is quantized with another scale or zero point than the layer
// expected-rule: shape_error::output_quantization_must_match_result<ctattn::op::quantized_projection, ctattn::quantization_constant<(ctattn::quantization)?\{[0-9]+, 4\}>, ctattn::quantization_constant<(ctattn::quantization)?\{[0-9]+, 3\}> ?>
#include <ctattn/quantized/linear.hpp>

inline constexpr ctattn::quantization q_in{0.02, -5}, q_out{0.05, 3}, q_other{0.05, 4};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{};
inline constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
inline const ctattn::qmatrix<1, 3, q_in> x{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  ctattn::qmatrix<1, 2, q_other> y;
  ctattn::project_into(y, x, head_q);  // <- mistake
#else
  ctattn::qmatrix<1, 2, q_out> y;
  ctattn::project_into(y, x, head_q);
#endif
}
