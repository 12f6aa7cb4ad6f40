// Rule: an int8 llama attention's input has its width (d_model, the projections' inputs)
// expected-error: ctattn: in a product a \* b the columns of a must match the rows of b
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::quantized_projection, ctattn::dim<ctattn::unnamed, 6>, ctattn::dim<ctattn::unnamed, 8> ?>
#include "tiny_qllama.hpp"

using tiny_qllama::attention_q;
using tiny_qllama::q_x;
inline const ctattn::qmatrix<3, 6, q_x> narrow_x{};
inline const ctattn::qmatrix<3, 8, q_x> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return attention_q.forward(narrow_x)(0, 0);  // <- mistake
#else
  return attention_q.forward(x)(0, 0);
#endif
}
