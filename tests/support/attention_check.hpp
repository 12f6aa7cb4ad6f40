// One checker for a scaled dot-product attention fixture case, usable in static_assert and at run time.
#ifndef CTATTN_TESTS_SUPPORT_ATTENTION_CHECK_HPP
#define CTATTN_TESTS_SUPPORT_ATTENTION_CHECK_HPP

#include "support/fast_bounds.hpp"

#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/elementwise.hpp>
#include <ctattn/matrix/from_array.hpp>

#include <cstddef>
#include <type_traits>

namespace ctattn_test {

/// Tolerances against PyTorch: float32 results differ from torch's float32 in summation order only
/// (measured: at most 2 ulp); double results from the same float inputs agree with torch float64 to ~2e-16.
inline constexpr float float_absolute = 5e-7f;
inline constexpr float float_relative = 5e-7f;
inline constexpr double double_absolute = 2e-15;
inline constexpr double double_relative = 1e-14;

struct attention_check {
  bool float_output;
  bool float_weights;
  bool double_output;
  bool double_weights;
  bool output_matches_output_of_with_weights;  // the two result forms give the same bits
  float float_output_difference;
  float float_weights_difference;
  double double_output_difference;
  double double_weights_difference;
  [[nodiscard]] constexpr bool all() const {
    return float_output && float_weights && double_output && double_weights && output_matches_output_of_with_weights;
  }
};

template <std::size_t NQ, std::size_t DK, std::size_t NKV, std::size_t DV, typename Mask, typename DoubleMask>
constexpr attention_check check_attention(const float (&q)[NQ][DK], const float (&k)[NKV][DK],
                                          const float (&v)[NKV][DV], const Mask& mask, const DoubleMask& double_mask,
                                          const float (&weights)[NQ][NKV], const float (&output)[NQ][DV],
                                          const double (&weights_f64)[NQ][NKV], const double (&output_f64)[NQ][DV]) {
  const auto qf = ctattn::from_array(q);
  const auto kf = ctattn::from_array(k);
  const auto vf = ctattn::from_array(v);
  const auto single = ctattn::scaled_dot_product_attention(qf, kf, vf, mask, ctattn::with_weights);
  const auto plain = ctattn::scaled_dot_product_attention(qf, kf, vf, mask);
  const auto dual = ctattn::scaled_dot_product_attention(ctattn::cast<double>(qf), ctattn::cast<double>(kf),
                                                         ctattn::cast<double>(vf), double_mask, ctattn::with_weights);
  attention_check c{};
  const float absolute = tolerance(float_absolute, fast_float_tolerance);
  const float relative = tolerance(float_relative, fast_float_tolerance);
  c.float_output = ctattn::approx_equal(single.output, ctattn::from_array(output), absolute, relative);
  c.float_weights = ctattn::approx_equal(single.weights, ctattn::from_array(weights), absolute, relative);
  c.double_output = ctattn::approx_equal(dual.output, ctattn::from_array(output_f64), double_absolute, double_relative);
  c.double_weights =
      ctattn::approx_equal(dual.weights, ctattn::from_array(weights_f64), double_absolute, double_relative);
  // Exact arithmetic: the same bits. Fast arithmetic computes the two forms by two kernels (fused, and scores kept
  // for the weights), so they agree within the fast bound.
  c.output_matches_output_of_with_weights =
      plain == single.output ||
      (fast_at_run_time && !std::is_constant_evaluated() &&
       ctattn::approx_equal(plain, single.output, fast_float_tolerance, fast_float_tolerance));
  c.float_output_difference = ctattn::max_abs_difference(single.output, ctattn::from_array(output));
  c.float_weights_difference = ctattn::max_abs_difference(single.weights, ctattn::from_array(weights));
  c.double_output_difference = ctattn::max_abs_difference(dual.output, ctattn::from_array(output_f64));
  c.double_weights_difference = ctattn::max_abs_difference(dual.weights, ctattn::from_array(weights_f64));
  return c;
}

}  // namespace ctattn_test

#endif  // CTATTN_TESTS_SUPPORT_ATTENTION_CHECK_HPP
