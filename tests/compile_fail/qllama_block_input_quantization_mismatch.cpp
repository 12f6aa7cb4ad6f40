// Rule: an int8 llama block's input is quantized as the block was quantized for (its attention norm's input)
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_layer_norm, ctattn::quantization_constant<
#include "tiny_qllama.hpp"

using tiny_qllama::block_q;
using tiny_qllama::block_type;
inline constexpr ctattn::quantization q_other{1.0 / 32};
inline const ctattn::basic_qmatrix<std::size_t{3}, block_type::input_extent, q_other> other_x{};
inline const ctattn::basic_qmatrix<std::size_t{3}, block_type::input_extent, block_type::input_quantization> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return block_q.forward(other_x)(0, 0);  // <- mistake
#else
  return block_q.forward(x)(0, 0);
#endif
}
