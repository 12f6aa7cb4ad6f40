// Rule: RoPE needs the table and the queries in the same element type
// expected-error: ctattn: the operands hold different element types \(float
// expected-rule: shape_error::element_types_must_match<ctattn::op::rotary_embedding, double, float ?>
#include <ctattn/position/rotary.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct vocab : ctattn::dimension<"vocab"> {};
inline const ctattn::matrix<double, seq{6}, d_head{8}> q{};

double use() {
#ifdef CTATTN_COMPILE_FAIL
  static constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
#else
  static constexpr auto rope = ctattn::make_rotary_table<double, 6, 8>();
#endif
  return ctattn::apply_rotary<ctattn::rotary_layout::interleaved>(q, rope)(0, 0);  // <- mistake
}
