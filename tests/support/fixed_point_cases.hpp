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

// The operands as they are (constant evaluation).
inline constexpr auto as_is = [](auto value) { return value; };

}  // namespace ctattn_test::fixed_point_cases
