// The fixed-point arithmetic of int8 inference at compile time, against the exact reference (every case must match:
// tests/support/fixed_point_cases.hpp), and the examples of its documentation.
#include "support/fixed_point_cases.hpp"

namespace {
namespace cases = ctattn_test::fixed_point_cases;
namespace math = ctattn::math;

static_assert(cases::multiplier_mismatches(cases::as_is) == 0);
static_assert(cases::high_mul_mismatches(cases::as_is) == 0);
static_assert(cases::divide_mismatches(cases::as_is) == 0);
static_assert(cases::requantize_mismatches(cases::as_is) == 0);
static_assert(cases::exp_mismatches(cases::as_is) == 0);
static_assert(cases::inverse_mismatches(cases::as_is) == 0);
static_assert(cases::reciprocal_mismatches(cases::as_is) == 0);
static_assert(cases::requantize64_mismatches(cases::as_is) == 0);

static_assert(math::quantize_multiplier(0.25) == math::quantized_multiplier{1 << 30, -1});
static_assert(math::quantize_multiplier(0.75) == math::quantized_multiplier{3 << 29, 0});
static_assert(math::quantize_multiplier(0.0) == math::quantized_multiplier{});
static_assert(math::multiply_by_quantized_multiplier(1000, math::quantize_multiplier(0.25)) == 250);
static_assert(math::multiply_by_quantized_multiplier(-7, math::quantize_multiplier(0.5)) == -3);  // -3.5 -> -3
static_assert(math::multiply_by_quantized_multiplier(7, math::quantize_multiplier(0.5)) == 4);    //  3.5 ->  4
static_assert(math::rounding_divide_by_power_of_two(-6, 2) == -2);                                // -1.5 -> -2
static_assert(math::rounding_divide_by_power_of_two(6, 2) == 2);                                  //  1.5 ->  2
static_assert(math::saturating_rounding_doubling_high_mul(1 << 30, 1 << 30) == 1 << 29);
static_assert(math::saturating_rounding_doubling_high_mul(-2147483647 - 1, -2147483647 - 1) == 2147483647);
static_assert(math::saturating_rounding_multiply_by_power_of_two(1 << 30, 2) == 0x7FFFFFFF);
static_assert(math::saturating_rounding_multiply_by_power_of_two(-6, -2) == -2);
static_assert(math::exp_on_interval_between_negative_one_quarter_and_0_excl(-(1 << 28)) == 1895147668);
static_assert(math::exp_on_negative_values<5>(0) == 0x7FFFFFFF);
static_assert(math::one_over_one_plus_x(0) == 0x7FFFFFFF);
static_assert(math::reciprocal_of_sum(1 << 19, 12).bits_over_unit == 0);
static_assert(math::multiply_by_reduced_multiplier(1000, math::quantize_multiplier(0.25)) == 250);
static_assert(math::multiply_by_reduced_multiplier(-3, math::quantize_multiplier(0.5)) == -1);  // -1.5 -> -1
}  // namespace
