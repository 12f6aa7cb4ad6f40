// Multi-head attention fixture cases (PyTorch nn.MultiheadAttention, grouped-query, multi-query, the worked
// example's 3 wide heads) as constexpr checks, named once in `every_case` (tests/support/case_list.hpp) for the
// static, run-time and backend tests. Each case runs in
// float against torch's float32 results and in double (from the same float inputs) against torch's float64.
#ifndef CTATTN_TESTS_SUPPORT_MULTIHEAD_CASES_HPP
#define CTATTN_TESTS_SUPPORT_MULTIHEAD_CASES_HPP

#include "fixtures/attention/multihead.hpp"
#include "fixtures/attention/worked_example_three_heads.hpp"
#include "support/case_list.hpp"
#include "support/fast_bounds.hpp"
#include "support/test_data.hpp"

#include <ctattn/attention/multi_head.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/from_array.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>

namespace ctattn_test::multihead_cases {

namespace fx = ctattn_fixtures::multihead;
using ctattn_test::to_matrix;
using ctattn_test::to_row;

struct check {
  bool float_output;
  bool float_head_weights;
  bool float_mean_weights;
  bool double_output;
  bool double_head_weights;
  float float_output_difference;
  double double_output_difference;
  [[nodiscard]] constexpr bool all() const {
    return float_output && float_head_weights && float_mean_weights && double_output && double_head_weights;
  }
};

// Projections pass through two more roundings than plain attention (the input projections and W_O), so the
// float tolerance is a few ulp of the outputs' magnitude (measured: 1 ulp).
inline constexpr float float_absolute = 5e-7f;
inline constexpr float float_relative = 5e-7f;
inline constexpr double double_absolute = 2e-15;
inline constexpr double double_relative = 1e-14;

template <typename T, std::size_t R, std::size_t C, std::size_t AR>
constexpr ctattn::matrix<T, R, C> rows_of(const float (&a)[AR][C], std::size_t first) {
  ctattn::matrix<T, R, C> m{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) m.elements[i][j] = static_cast<T>(a[first + i][j]);
  }
  return m;
}

template <typename T, std::size_t C>
constexpr ctattn::matrix<T, 1, C> bias_block(const float (&a)[3 * C], std::size_t block) {
  ctattn::matrix<T, 1, C> m{};
  for (std::size_t j = 0; j < C; ++j) m.elements[0][j] = static_cast<T>(a[block * C + j]);
  return m;
}

// Two result forms of one call: the same bits with exact arithmetic; within the fast bound with fast arithmetic,
// where the forms run different kernels (fused, and scores kept for the weights).
template <typename M>
constexpr bool same_within_fast_bound(const M& a, const M& b) {
  return fast_at_run_time && !std::is_constant_evaluated() &&
         ctattn::approx_equal(a, b, fast_float_tolerance, fast_float_tolerance);
}

template <typename Result, std::size_t H, std::size_t NQ, std::size_t NKV, std::size_t DOUT>
constexpr check compare(const Result& single, const auto& dual, const float (&output)[NQ][DOUT],
                        const double (&output_f64)[NQ][DOUT], const float (&head_weights)[H][NQ][NKV],
                        const double (&head_weights_f64)[H][NQ][NKV], const float (*mean_weights)[NQ][NKV]) {
  check c{};
  const float absolute = tolerance(float_absolute, fast_float_tolerance);
  const float relative = tolerance(float_relative, fast_float_tolerance);
  c.float_output = ctattn::approx_equal(single.output, ctattn::from_array(output), absolute, relative);
  c.double_output = ctattn::approx_equal(dual.output, ctattn::from_array(output_f64), double_absolute, double_relative);
  c.float_output_difference = ctattn::max_abs_difference(single.output, ctattn::from_array(output));
  c.double_output_difference = ctattn::max_abs_difference(dual.output, ctattn::from_array(output_f64));
  c.float_head_weights = true;
  c.double_head_weights = true;
  for (std::size_t h = 0; h < H; ++h) {
    c.float_head_weights =
        c.float_head_weights &&
        ctattn::approx_equal(single.head_weights[h], ctattn::from_array(head_weights[h]), absolute, relative);
    c.double_head_weights =
        c.double_head_weights && ctattn::approx_equal(dual.head_weights[h], ctattn::from_array(head_weights_f64[h]),
                                                      double_absolute, double_relative);
  }
  c.float_mean_weights =
      mean_weights == nullptr ||
      ctattn::approx_equal(single.mean_weights, ctattn::from_array(*mean_weights), absolute, relative);
  return c;
}

// nn.MultiheadAttention(embed_dim = 8, num_heads = 2) with its packed in_proj weights.
template <typename T, typename Case>
constexpr auto torch_packed_weights() {
  ctattn::multi_head_attention_weights<T, 2, std::size_t{8}, ctattn::out_by_in, true> w{};
  w.query = {rows_of<T, 8, 8>(Case::in_proj_weight, 0), bias_block<T, 8>(Case::in_proj_bias, 0)};
  w.key = {rows_of<T, 8, 8>(Case::in_proj_weight, 8), bias_block<T, 8>(Case::in_proj_bias, 1)};
  w.value = {rows_of<T, 8, 8>(Case::in_proj_weight, 16), bias_block<T, 8>(Case::in_proj_bias, 2)};
  w.output = {to_matrix<T>(Case::out_proj_weight), to_row<T>(Case::out_proj_bias)};
  return w;
}

struct self_attention_case {
  static constexpr const auto& in_proj_weight = fx::self_attention::in_proj_weight;
  static constexpr const auto& in_proj_bias = fx::self_attention::in_proj_bias;
  static constexpr const auto& out_proj_weight = fx::self_attention::out_proj_weight;
  static constexpr const auto& out_proj_bias = fx::self_attention::out_proj_bias;
};
struct causal_case {
  static constexpr const auto& in_proj_weight = fx::causal_self_attention::in_proj_weight;
  static constexpr const auto& in_proj_bias = fx::causal_self_attention::in_proj_bias;
  static constexpr const auto& out_proj_weight = fx::causal_self_attention::out_proj_weight;
  static constexpr const auto& out_proj_bias = fx::causal_self_attention::out_proj_bias;
};

constexpr check torch_self_attention() {
  namespace c = fx::self_attention;
  const auto xf = to_matrix<float>(c::x);
  const auto xd = to_matrix<double>(c::x);
  const auto single = ctattn::multi_head_attention(xf, xf, xf, torch_packed_weights<float, self_attention_case>(),
                                                   ctattn::with_weights);
  const auto dual = ctattn::multi_head_attention(xd, xd, xd, torch_packed_weights<double, self_attention_case>(),
                                                 ctattn::with_weights);
  // The packed import helper gives the same weights as the hand split above.
  const auto imported =
      ctattn::from_torch_multihead<2>(c::in_proj_weight, c::in_proj_bias, c::out_proj_weight, c::out_proj_bias);
  check result = compare(single, dual, c::output, c::output_f64, c::weights_per_head, c::weights_per_head_f64,
                         &c::weights_average);
  const auto plain = ctattn::multi_head_attention(xf, xf, xf, imported);
  result.float_output = result.float_output && (plain == single.output || same_within_fast_bound(plain, single.output));
  result.float_output = result.float_output && imported == torch_packed_weights<float, self_attention_case>();
  // The heads' outputs before W_O, as torch computes them.
  result.float_output =
      result.float_output && ctattn::approx_equal(single.heads_concat, ctattn::from_array(c::heads_concat),
                                                  tolerance(float_absolute, fast_float_tolerance),
                                                  tolerance(float_relative, fast_float_tolerance));
  return result;
}

constexpr check torch_causal_self_attention() {
  namespace c = fx::causal_self_attention;
  const auto xf = to_matrix<float>(c::x);
  const auto xd = to_matrix<double>(c::x);
  const auto single = ctattn::multi_head_attention(xf, xf, xf, torch_packed_weights<float, causal_case>(),
                                                   ctattn::causal, ctattn::with_weights);
  const auto dual = ctattn::multi_head_attention(xd, xd, xd, torch_packed_weights<double, causal_case>(),
                                                 ctattn::causal, ctattn::with_weights);
  return compare(single, dual, c::output, c::output_f64, c::weights_per_head, c::weights_per_head_f64,
                 &c::weights_average);
}

template <typename T>
constexpr auto torch_kdim_vdim_weights() {
  namespace c = fx::cross_attention_kdim_vdim;
  ctattn::multi_head_attention_weights<T, 2, std::size_t{8}, ctattn::out_by_in, true, std::size_t{6}, std::size_t{4}>
      w{};
  w.query = {to_matrix<T>(c::q_proj_weight), bias_block<T, 8>(c::in_proj_bias, 0)};
  w.key = {to_matrix<T>(c::k_proj_weight), bias_block<T, 8>(c::in_proj_bias, 1)};
  w.value = {to_matrix<T>(c::v_proj_weight), bias_block<T, 8>(c::in_proj_bias, 2)};
  w.output = {to_matrix<T>(c::out_proj_weight), to_row<T>(c::out_proj_bias)};
  return w;
}

constexpr check torch_cross_attention_kdim_vdim() {
  namespace c = fx::cross_attention_kdim_vdim;
  const auto single =
      ctattn::multi_head_attention(to_matrix<float>(c::query), to_matrix<float>(c::key), to_matrix<float>(c::value),
                                   torch_kdim_vdim_weights<float>(), ctattn::with_weights);
  const auto dual =
      ctattn::multi_head_attention(to_matrix<double>(c::query), to_matrix<double>(c::key), to_matrix<double>(c::value),
                                   torch_kdim_vdim_weights<double>(), ctattn::with_weights);
  check result = compare(single, dual, c::output, c::output_f64, c::weights_per_head, c::weights_per_head_f64,
                         &c::weights_average);
  // The import helper for torch's separate q/k/v projection weights gives the same weights as the hand split.
  const auto imported = ctattn::from_torch_multihead<2>(c::q_proj_weight, c::k_proj_weight, c::v_proj_weight,
                                                        c::in_proj_bias, c::out_proj_weight, c::out_proj_bias);
  result.float_output = result.float_output && imported == torch_kdim_vdim_weights<float>();
  // The heads' outputs before W_O, as torch computes them.
  result.float_output =
      result.float_output && ctattn::approx_equal(single.heads_concat, ctattn::from_array(c::heads_concat),
                                                  tolerance(float_absolute, fast_float_tolerance),
                                                  tolerance(float_relative, fast_float_tolerance));
  return result;
}

template <typename T, typename Case, std::size_t KVHeads>
constexpr auto grouped_weights() {
  ctattn::grouped_query_attention_weights<T, 4, KVHeads, std::size_t{16}, 4, ctattn::out_by_in> w{};
  w.query = {to_matrix<T>(Case::w_q)};
  w.key = {to_matrix<T>(Case::w_k)};
  w.value = {to_matrix<T>(Case::w_v)};
  w.output = {to_matrix<T>(Case::w_o)};
  return w;
}

template <typename Case, std::size_t KVHeads>
constexpr check grouped() {
  const auto xf = to_matrix<float>(Case::x);
  const auto xd = to_matrix<double>(Case::x);
  const auto single =
      ctattn::multi_head_attention(xf, xf, xf, grouped_weights<float, Case, KVHeads>(), ctattn::with_weights);
  const auto dual =
      ctattn::multi_head_attention(xd, xd, xd, grouped_weights<double, Case, KVHeads>(), ctattn::with_weights);
  const float(*no_mean)[Case::n][Case::n] = nullptr;
  check result = compare(single, dual, Case::output, Case::output_f64, Case::weights_per_head,
                         Case::weights_per_head_f64, no_mean);
  // One function, two forms: the same bits with exact arithmetic, the fast bound with fast arithmetic.
  const auto plain = ctattn::grouped_query_attention(xf, xf, xf, grouped_weights<float, Case, KVHeads>());
  result.float_output = result.float_output && (plain == single.output || same_within_fast_bound(plain, single.output));
  return result;
}

struct grouped_query_case {
  static constexpr std::size_t n = fx::grouped_query::n;
  static constexpr const auto& x = fx::grouped_query::x;
  static constexpr const auto& w_q = fx::grouped_query::w_q;
  static constexpr const auto& w_k = fx::grouped_query::w_k;
  static constexpr const auto& w_v = fx::grouped_query::w_v;
  static constexpr const auto& w_o = fx::grouped_query::w_o;
  static constexpr const auto& output = fx::grouped_query::output;
  static constexpr const auto& output_f64 = fx::grouped_query::output_f64;
  static constexpr const auto& weights_per_head = fx::grouped_query::weights_per_head;
  static constexpr const auto& weights_per_head_f64 = fx::grouped_query::weights_per_head_f64;
};
struct multi_query_case {
  static constexpr std::size_t n = fx::multi_query::n;
  static constexpr const auto& x = fx::multi_query::x;
  static constexpr const auto& w_q = fx::multi_query::w_q;
  static constexpr const auto& w_k = fx::multi_query::w_k;
  static constexpr const auto& w_v = fx::multi_query::w_v;
  static constexpr const auto& w_o = fx::multi_query::w_o;
  static constexpr const auto& output = fx::multi_query::output;
  static constexpr const auto& output_f64 = fx::multi_query::output_f64;
  static constexpr const auto& weights_per_head = fx::multi_query::weights_per_head;
  static constexpr const auto& weights_per_head_f64 = fx::multi_query::weights_per_head_f64;
};

constexpr check grouped_query() { return grouped<grouped_query_case, 2>(); }
constexpr check multi_query() { return grouped<multi_query_case, 1>(); }

// The worked example with 3 wide heads (torch.rand(3, 24, 16) for queries, then keys, torch.rand(3, 28, 16) for
// values, after torch.manual_seed(123)).
namespace three = ctattn_fixtures::worked_example_three_heads;
using wide_head = ctattn::attention_head<float, std::size_t{16}, std::size_t{24}, std::size_t{28}, ctattn::out_by_in>;

constexpr std::array<wide_head, 3> three_heads() {
  std::array<wide_head, 3> heads{};
  for (std::size_t h = 0; h < 3; ++h) {
    heads[h] = {{ctattn::from_array(three::w_query[h])},
                {ctattn::from_array(three::w_key[h])},
                {ctattn::from_array(three::w_value[h])}};
  }
  return heads;
}

struct wide_check {
  bool concat;
  bool weights;
  float concat_difference;
  [[nodiscard]] constexpr bool all() const { return concat && weights; }
};

constexpr wide_check three_wide_heads() {
  const auto x = ctattn::from_array(three::x);
  const auto heads = three_heads();
  const auto concat = ctattn::wide_multi_head_attention(x, x, heads);
  wide_check c{};
  // torch sums the 16-term projections and the 24-term scores in its own order: a few float ulp of |value| < 40.
  c.concat = ctattn::approx_equal(concat, ctattn::from_array(three::concat), tolerance(1e-6f, 4 * fast_float_tolerance),
                                  tolerance(1e-6f, fast_float_tolerance));
  c.concat_difference = ctattn::max_abs_difference(concat, ctattn::from_array(three::concat));
  c.weights = true;
  for (std::size_t h = 0; h < 3; ++h) {
    const auto r = ctattn::self_attention(x, heads[h], ctattn::with_weights);
    c.weights = c.weights && ctattn::approx_equal(r.weights, ctattn::from_array(three::weights[h]), 1e-6f, 1e-5f);
  }
  return c;
}

// Every case of this header, once: tests/static evaluates each as a constant expression of its own, tests/runtime
// runs them with exact arithmetic, tests/backend with each backend's fast arithmetic. Each returns its check.
inline constexpr unsigned runners = in_constant_evaluation | at_run_time | with_each_backend;
inline constexpr auto every_case = std::tuple{
    test_case{"nn.MultiheadAttention with biases", runners, [](auto) { return torch_self_attention(); }},
    test_case{"nn.MultiheadAttention, causal", runners, [](auto) { return torch_causal_self_attention(); }},
    test_case{"nn.MultiheadAttention with kdim and vdim, cross-attention", runners,
              [](auto) { return torch_cross_attention_kdim_vdim(); }},
    test_case{"grouped-query attention", runners, [](auto) { return grouped_query(); }},
    test_case{"multi-query attention", runners, [](auto) { return multi_query(); }},
    test_case{"the worked example's 3 wide heads", runners, [](auto) { return three_wide_heads(); }},
};

}  // namespace ctattn_test::multihead_cases

#endif  // CTATTN_TESTS_SUPPORT_MULTIHEAD_CASES_HPP
