// Rule: a decoding cache for llama attention holds no more tokens than the rotary table has positions
// expected-error: ctattn: the sequence has more positions than the
// expected-rule: shape_error::sequence_must_fit_position_table<ctattn::op::llama_attention, ctattn::dim<ctattn::unnamed, 16>, ctattn::dim<ctattn::unnamed, 8> ?>
#include <ctattn/layers.hpp>

using attention_type = ctattn::llama_attention<float, 16, 4, 2, 8>;
inline const attention_type attention{};
inline const ctattn::matrix<float, 1, 16> x_t{};

float use() {
  ctattn::matrix<float, 1, 16> out{};
#ifdef CTATTN_COMPILE_FAIL
  attention_type::cache_type<16> cache{};
  (void)attention.step(x_t, cache, out);  // <- mistake
#else
  attention_type::cache_type<8> cache{};
  (void)attention.step(x_t, cache, out);
#endif
  return out(0, 0);
}
