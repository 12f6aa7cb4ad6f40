// Rule: an int8 llama attention's input is quantized as the attention was quantized for (its projections' input)
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_projection, ctattn::quantization_constant<
#include "tiny_qllama.hpp"

using tiny_qllama::attention_q;
using tiny_qllama::q_x;
inline constexpr ctattn::quantization q_other{1.0 / 32};
inline const ctattn::qmatrix<3, 8, q_other> other_x{};
inline const ctattn::qmatrix<3, 8, q_x> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return attention_q.forward(other_x)(0, 0);  // <- mistake
#else
  return attention_q.forward(x)(0, 0);
#endif
}
