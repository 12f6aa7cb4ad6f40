// Rule: an int8 layer writing into the caller's matrix: that matrix has one column per output channel
// expected-error: ctattn: the operands must have matching columns \(equal
// expected-rule: shape_error::columns_must_match<ctattn::op::quantized_projection, ctattn::dim<ctattn::unnamed, 3>, ctattn::dim<ctattn::unnamed, 2> ?>
#include <ctattn/quantized/linear.hpp>

inline constexpr ctattn::quantization q_in{0.02, -5}, q_out{0.05, 3};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{};
inline constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
inline const ctattn::qmatrix<1, 3, q_in> x{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  ctattn::qmatrix<1, 3, q_out> y;
  ctattn::project_into(y, x, head_q);  // <- mistake
#else
  ctattn::qmatrix<1, 2, q_out> y;
  ctattn::project_into(y, x, head_q);
#endif
}
