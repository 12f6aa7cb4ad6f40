// Rule: llama attention: the heads split d_model into equal parts
// expected-error: ctattn: the heads split d_model into equal parts
// expected-rule: shape_error::heads_must_divide_model_width<ctattn::op::llama_attention, ctattn::count<3>, ctattn::dim<ctattn::unnamed, 16> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::llama_attention<float, 16, 3, 1, 8> attention{};  // <- mistake
#else
inline const ctattn::llama_attention<float, 16, 4, 1, 8> attention{};
#endif
inline const ctattn::matrix<float, 5, 16> x{};

float use() { return ctattn::forward(attention, x)(0, 0); }
