// ctattn's fixed-point arithmetic (include/ctattn/math/fixed_point.hpp) against the reference values computed from
// the definitions with exact integers (tests/fixtures/math/fixed_point.hpp): the number of results that differ,
// per function. Asserted at compile time (tests/static/fixed_point_test.cpp) and checked at run time
// (tests/runtime/fixed_point_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include <ctattn/math/fixed_point.hpp>

#include "fixtures/math/fixed_point.hpp"

namespace ctattn_test::fixed_point_cases {

namespace fx = ctattn_fixtures::fixed_point;

// `Read` passes each operand through (at run time: a function the optimizer cannot see through).
template <typename Read>
constexpr std::size_t multiplier_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::multipliers::real); ++i) {
    const auto m = ctattn::math::quantize_multiplier(read(fx::multipliers::real[i]));
    bad += (m.multiplier == fx::multipliers::multiplier[i] && m.shift == fx::multipliers::shift[i]) ? 0u : 1u;
  }
  return bad;
}

template <typename Read>
constexpr std::size_t high_mul_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::high_mul::a); ++i) {
    const std::int32_t r =
        ctattn::math::saturating_rounding_doubling_high_mul(read(fx::high_mul::a[i]), read(fx::high_mul::b[i]));
    bad += r == fx::high_mul::result[i] ? 0u : 1u;
  }
  return bad;
}

template <typename Read>
constexpr std::size_t divide_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::divide::x); ++i) {
    const std::int32_t r =
        ctattn::math::rounding_divide_by_power_of_two(read(fx::divide::x[i]), read(fx::divide::exponent[i]));
    bad += r == fx::divide::result[i] ? 0u : 1u;
  }
  return bad;
}

template <typename Read>
constexpr std::size_t requantize_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::requantize::x); ++i) {
    const auto index = static_cast<std::size_t>(fx::requantize::index[i]);
    const auto m = ctattn::math::quantize_multiplier(read(fx::multipliers::real[index]));
    const std::int32_t r = ctattn::math::multiply_by_quantized_multiplier(read(fx::requantize::x[i]), m);
    bad += r == fx::requantize::result[i] ? 0u : 1u;
  }
  return bad;
}

// exp_on_negative_values<I> for the I a fixture row names (the formats it draws).
constexpr std::int32_t exp_with_integer_bits(std::int32_t a, std::int32_t bits) noexcept {
  switch (bits) {
    case 0:
      return ctattn::math::exp_on_negative_values<0>(a);
    case 1:
      return ctattn::math::exp_on_negative_values<1>(a);
    case 3:
      return ctattn::math::exp_on_negative_values<3>(a);
    case 5:
      return ctattn::math::exp_on_negative_values<5>(a);
    case 6:
      return ctattn::math::exp_on_negative_values<6>(a);
    case 12:
      return ctattn::math::exp_on_negative_values<12>(a);
    default:
      return -1;  // a format the fixture does not draw: counted as a mismatch
  }
}

template <typename Read>
constexpr std::size_t exp_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::exp::a); ++i) {
    const std::int32_t r = exp_with_integer_bits(read(fx::exp::a[i]), fx::exp::integer_bits[i]);
    bad += r == fx::exp::result[i] ? 0u : 1u;
  }
  return bad;
}

template <typename Read>
constexpr std::size_t inverse_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::inverse::a); ++i) {
    bad += ctattn::math::one_over_one_plus_x(read(fx::inverse::a[i])) == fx::inverse::result[i] ? 0u : 1u;
  }
  return bad;
}

template <typename Read>
constexpr std::size_t reciprocal_mismatches(Read read) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(fx::reciprocal::sum); ++i) {
    const auto r = ctattn::math::reciprocal_of_sum(read(fx::reciprocal::sum[i]), read(fx::reciprocal::integer_bits[i]));
    bad += r.scale == fx::reciprocal::scale[i] && r.bits_over_unit == fx::reciprocal::bits_over_unit[i] ? 0u : 1u;
  }
  return bad;
}

template <typename Read>
constexpr std::size_t requantize64_mismatches(Read read) noexcept {
  namespace r = fx::requantize64;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::size(r::x); ++i) {
    const ctattn::math::quantized_multiplier m{read(r::multiplier[i]), read(r::shift[i])};
    bad += ctattn::math::multiply_by_reduced_multiplier(read(r::x[i]), m) == r::result[i] ? 0u : 1u;
  }
  return bad;
}

// The operands as they are (constant evaluation).
inline constexpr auto as_is = [](auto value) { return value; };

}  // namespace ctattn_test::fixed_point_cases
