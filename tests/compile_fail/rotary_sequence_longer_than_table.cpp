// Rule: a rotary table must cover every position of the sequence
// expected-error: ctattn: the sequence has more positions than the
// expected-rule: shape_error::sequence_must_fit_position_table<ctattn::op::rotary_embedding, ctattn::dim<seq, 6>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/position/rotary.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};
inline const ctattn::matrix<float, seq{6}, d_head{8}> q{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  static constexpr auto rope = ctattn::make_rotary_table<float, 4, 8>();
#else
  static constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
#endif
  return ctattn::apply_rotary<ctattn::rotary_layout::rotate_half>(q, rope)(0, 0);  // <- mistake
}
