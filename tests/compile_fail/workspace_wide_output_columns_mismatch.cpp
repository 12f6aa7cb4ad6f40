// Rule: wide multi-head attention writes h * d_v columns (3 heads of d_v = 28: 84, not 28)
// expected-error: ctattn: the output holds the weighted values, so
// expected-rule: shape_error::output_columns_must_match_values<ctattn::op::wide_multi_head_attention, ctattn::dim<d_v,
// 28>, ctattn::dim<ctattn::unnamed, 84> ?>
#include <array>

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/multi_head.hpp>
#include <ctattn/attention/workspace.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
using head_type = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
inline const std::array<head_type, 3> heads{};
inline const ctattn::matrix<float, seq{6}, d_model{16}> x{};

float use() {
  static ctattn::cross_attention_workspace<decltype(x), decltype(x), head_type> workspace;
#ifdef CTATTN_COMPILE_FAIL
  static ctattn::matrix<float, seq{6}, d_v{28}> concat;
#else
  static ctattn::matrix<float, seq{6}, 84> concat;
#endif
  ctattn::wide_multi_head_attention(x, x, heads, ctattn::into(concat, workspace));  // <- mistake
  return concat(0, 0);
}
