// Rule: llama attention rotates each position by its row of the rotary table: the sequence must fit the table
// expected-error: ctattn: the sequence has more positions than the
// expected-rule: shape_error::sequence_must_fit_position_table<ctattn::op::llama_attention, ctattn::dim<ctattn::unnamed, 9>, ctattn::dim<ctattn::unnamed, 8> ?>
#include <ctattn/layers.hpp>

inline const ctattn::llama_attention<float, 16, 4, 2, 8> attention{};
inline const ctattn::matrix<float, 9, 16> long_x{};
inline const ctattn::matrix<float, 8, 16> x{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  return ctattn::forward(attention, long_x)(0, 0);  // <- mistake
#else
  return ctattn::forward(attention, x)(0, 0);
#endif
}
