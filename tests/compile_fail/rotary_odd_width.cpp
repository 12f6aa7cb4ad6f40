// Rule: a rotary table rotates pairs of features: its width must be even
// expected-error: ctattn: sines and cosines fill the columns in
// expected-rule: shape_error::dimension_must_be_even<ctattn::op::rotary_embedding, ctattn::dim<ctattn::unnamed, 7> ?>
#include <ctattn/position/rotary.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr auto rope = ctattn::make_rotary_table<float, 6, 7>();  // <- mistake
#else
  constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
#endif
  return rope.cos_table(1, 0);
}
