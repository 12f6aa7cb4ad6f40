// Rule: a row decoded by an int8 llama block has the block's width (its attention norm's input)
// expected-error: ctattn: the operands must have matching columns
// expected-rule: shape_error::columns_must_match<ctattn::op::quantized_layer_norm, ctattn::dim<ctattn::unnamed, 6>, ctattn::dim<ctattn::unnamed, 4> ?>
#include "tiny_qllama.hpp"

using tiny_qllama::block_q;
using tiny_qllama::block_type;
inline const ctattn::basic_qmatrix<std::size_t{1}, std::size_t{6}, block_type::input_quantization> wide_row{};
inline const ctattn::basic_qmatrix<std::size_t{1}, block_type::input_extent, block_type::input_quantization> row{};

int use() {
  block_type::cache_type<4> cache{};
  block_type::output_row out{};
#ifdef CTATTN_COMPILE_FAIL
  return block_q.step(wide_row, cache, out) ? 1 : 0;  // <- mistake
#else
  return block_q.step(row, cache, out) ? 1 : 0;
#endif
}
