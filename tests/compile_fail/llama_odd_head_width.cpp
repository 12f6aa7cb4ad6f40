// Rule: llama attention rotates a head's columns in pairs: its width must be even
// expected-error: ctattn: sines and cosines fill the columns in
// expected-rule: shape_error::dimension_must_be_even<ctattn::op::llama_attention, ctattn::dim<ctattn::unnamed, 3> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::llama_attention<float, 12, 4, 2, 8> attention{};  // <- mistake
#else
inline const ctattn::llama_attention<float, 16, 4, 2, 8> attention{};
#endif
inline const ctattn::matrix<float, 5, 16> x{};

float use() { return attention.wq.weight(0, 0); }
