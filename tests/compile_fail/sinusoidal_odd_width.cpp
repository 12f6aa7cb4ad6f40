// Rule: the sinusoidal encoding needs an even model width (a sine and a cosine per frequency)
// expected-error: ctattn: sines and cosines fill the columns in
// expected-rule: shape_error::dimension_must_be_even<ctattn::op::sinusoidal_encoding, ctattn::dim<d_model, 15> ?>
#include <ctattn/position/sinusoidal.hpp>

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
  constexpr auto pe = ctattn::sinusoidal_position_encoding<float, seq{6}, d_model{15}>();  // <- mistake
#else
  constexpr auto pe = ctattn::sinusoidal_position_encoding<float, seq{6}, d_model{16}>();
#endif
  return pe(1, 0);
}
