// Rule: the int8 llama model rotates each position by its row of the rotary table: the ids must fit the table
// expected-error: ctattn: the sequence has more positions than the
// expected-rule: shape_error::sequence_must_fit_position_table<ctattn::op::llama_attention, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <array>

#include "tiny_qllama.hpp"

using tiny_qllama::model_q;
inline const std::array<int, 5> long_ids{1, 5, 2, 7, 3};
inline const std::array<int, 4> ids{1, 5, 2, 7};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return model_q.forward(long_ids)(0, 0);  // <- mistake
#else
  return model_q.forward(ids)(0, 0);
#endif
}
