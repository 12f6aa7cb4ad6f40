// Rule: llama attention: the key/value heads divide the query heads
// expected-error: ctattn: in grouped-query attention each key/value head serves
// expected-rule: shape_error::key_value_heads_must_divide_query_heads<ctattn::op::llama_attention, ctattn::count<3>, ctattn::count<4> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::llama_attention<float, 16, 4, 3, 8> attention{};  // <- mistake
#else
inline const ctattn::llama_attention<float, 16, 4, 2, 8> attention{};
#endif
inline const ctattn::matrix<float, 5, 16> x{};

float use() { return ctattn::forward(attention, x)(0, 0); }
