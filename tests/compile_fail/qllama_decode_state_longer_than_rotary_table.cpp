// Rule: an int8 llama model's decode state holds no more tokens than the rotary table has positions
// expected-error: ctattn: the sequence has more positions than the
// expected-rule: shape_error::sequence_must_fit_position_table<ctattn::op::llama_attention, ctattn::dim<ctattn::unnamed, 8>, ctattn::dim<ctattn::unnamed, 4> ?>
#include "tiny_qllama.hpp"

using tiny_qllama::model_q;

int use() {
  decltype(model_q)::logits_row logits{};
#ifdef CTATTN_COMPILE_FAIL
  decltype(model_q)::decode_state<8> state{};
  (void)model_q.step(1, state, logits);  // <- mistake
#else
  decltype(model_q)::decode_state<4> state{};
  (void)model_q.step(1, state, logits);
#endif
  return logits(0, 0);
}
