// Every scaled dot-product attention fixture case with its ctattn mask, as constexpr functions, named once in
// `every_case` (tests/support/case_list.hpp): the static, run-time and backend tests check the same list.
#ifndef CTATTN_TESTS_SUPPORT_ATTENTION_CASES_HPP
#define CTATTN_TESTS_SUPPORT_ATTENTION_CASES_HPP

#include "fixtures/attention/sdpa.hpp"
#include "support/attention_check.hpp"
#include "support/case_list.hpp"

#include <ctattn/attention/mask.hpp>

#include <tuple>

namespace ctattn_test::attention_cases {

namespace fx = ctattn_fixtures::sdpa;

#define CTATTN_TEST_CASE_ARGS(ns, weights, output, mask, double_mask)                                  \
  check_attention(fx::ns::q, fx::ns::k, fx::ns::v, mask, double_mask, fx::ns::weights, fx::ns::output, \
                  fx::ns::weights##_f64, fx::ns::output##_f64)

constexpr attention_check self_attention() {
  return CTATTN_TEST_CASE_ARGS(self_attention, weights, output, ctattn::no_mask, ctattn::no_mask);
}
constexpr attention_check cross_attention() {
  return CTATTN_TEST_CASE_ARGS(cross_attention, weights, output, ctattn::no_mask, ctattn::no_mask);
}
constexpr attention_check causal_square() {
  return CTATTN_TEST_CASE_ARGS(causal_square, weights, output, ctattn::causal, ctattn::causal);
}
constexpr attention_check causal_wide_top_left() {
  return CTATTN_TEST_CASE_ARGS(causal_wide, weights_top_left, output_top_left, ctattn::causal, ctattn::causal);
}
constexpr attention_check causal_wide_bottom_right() {
  return CTATTN_TEST_CASE_ARGS(causal_wide, weights_bottom_right, output_bottom_right, ctattn::causal_bottom_right,
                               ctattn::causal_bottom_right);
}
constexpr attention_check causal_tall_top_left() {
  return CTATTN_TEST_CASE_ARGS(causal_tall, weights_top_left, output_top_left, ctattn::causal, ctattn::causal);
}
constexpr attention_check causal_tall_bottom_right() {
  return CTATTN_TEST_CASE_ARGS(causal_tall, weights_bottom_right, output_bottom_right, ctattn::causal_bottom_right,
                               ctattn::causal_bottom_right);
}
constexpr attention_check key_padding_length() {
  const ctattn::key_padding_length mask{fx::key_padding_length::valid_length};
  return CTATTN_TEST_CASE_ARGS(key_padding_length, weights, output, mask, mask);
}
constexpr attention_check key_padding_flags() {
  ctattn::key_padding_flags<fx::key_padding_flags::n_kv> mask{};
  for (std::size_t j = 0; j < fx::key_padding_flags::n_kv; ++j) mask.valid[j] = fx::key_padding_flags::key_valid[j];
  return CTATTN_TEST_CASE_ARGS(key_padding_flags, weights, output, mask, mask);
}
constexpr attention_check sliding_window_r1() {
  return CTATTN_TEST_CASE_ARGS(sliding_window, weights_r1, output_r1, ctattn::sliding_window<1>,
                               ctattn::sliding_window<1>);
}
constexpr attention_check sliding_window_r2() {
  return CTATTN_TEST_CASE_ARGS(sliding_window, weights_r2, output_r2, ctattn::sliding_window<2>,
                               ctattn::sliding_window<2>);
}
constexpr attention_check boolean_mask() {
  ctattn::boolean_mask<fx::bool_mask::n_q, fx::bool_mask::n_kv> mask{};
  for (std::size_t i = 0; i < fx::bool_mask::n_q; ++i) {
    for (std::size_t j = 0; j < fx::bool_mask::n_kv; ++j) mask.allowed_keys[i][j] = fx::bool_mask::allowed[i][j];
  }
  return CTATTN_TEST_CASE_ARGS(bool_mask, weights, output, mask, mask);
}
constexpr attention_check additive_bias() {
  const auto bias = ctattn::from_array(fx::additive_bias::bias);
  return CTATTN_TEST_CASE_ARGS(additive_bias, weights, output, ctattn::additive_bias(bias),
                               ctattn::additive_bias(ctattn::cast<double>(bias)));
}
constexpr attention_check fully_masked_row() {
  ctattn::boolean_mask<fx::fully_masked_row::n_q, fx::fully_masked_row::n_kv> mask{};
  for (std::size_t i = 0; i < fx::fully_masked_row::n_q; ++i) {
    for (std::size_t j = 0; j < fx::fully_masked_row::n_kv; ++j) {
      mask.allowed_keys[i][j] = fx::fully_masked_row::allowed[i][j];
    }
  }
  return CTATTN_TEST_CASE_ARGS(fully_masked_row, weights, output, mask, mask);
}

#undef CTATTN_TEST_CASE_ARGS

// Every case of this header, once: tests/static evaluates each as a constant expression of its own, tests/runtime
// runs them with exact arithmetic, tests/backend with each backend's fast arithmetic (the fast bound of
// support/fast_bounds.hpp). Each returns its attention_check.
inline constexpr unsigned runners = in_constant_evaluation | at_run_time | with_each_backend;
inline constexpr auto every_case = std::tuple{
    test_case{"self-attention", runners, [](auto) { return self_attention(); }},
    test_case{"cross-attention, n_q != n_kv", runners, [](auto) { return cross_attention(); }},
    test_case{"causal", runners, [](auto) { return causal_square(); }},
    test_case{"causal, n_q < n_kv, top-left", runners, [](auto) { return causal_wide_top_left(); }},
    test_case{"causal, n_q < n_kv, bottom-right", runners, [](auto) { return causal_wide_bottom_right(); }},
    test_case{"causal, n_q > n_kv, top-left", runners, [](auto) { return causal_tall_top_left(); }},
    test_case{"causal, n_q > n_kv, bottom-right", runners, [](auto) { return causal_tall_bottom_right(); }},
    test_case{"key padding by length", runners, [](auto) { return key_padding_length(); }},
    test_case{"key padding by flags", runners, [](auto) { return key_padding_flags(); }},
    test_case{"sliding window r = 1", runners, [](auto) { return sliding_window_r1(); }},
    test_case{"sliding window r = 2", runners, [](auto) { return sliding_window_r2(); }},
    test_case{"boolean mask", runners, [](auto) { return boolean_mask(); }},
    test_case{"additive bias", runners, [](auto) { return additive_bias(); }},
    test_case{"a fully masked row gives zeros", runners, [](auto) { return fully_masked_row(); }},
};

}  // namespace ctattn_test::attention_cases

#endif  // CTATTN_TESTS_SUPPORT_ATTENTION_CASES_HPP
