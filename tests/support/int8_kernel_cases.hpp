// The int8 kernel (ctattn/kernels/int8.hpp) against a plain loop written here: pseudo-random int8 operands, every
// length K from 1 to 70 (every tail of every backend's step: 4, 8, 16, 32), one row against 9 rows (two passes of
// four and a rest), a column window that starts at an odd offset, and zero points at both ends of the int8 range.
// Counted as the number of sums that differ; zero at compile time (tests/static/quantized_test.cpp, the scalar
// form) and at run time with each backend (tests/backend/backend_test.cpp, tests/runtime/quantized_test.cpp, and
// the firmware image int8_kernels).
#pragma once

#include <cstddef>
#include <cstdint>

#include <ctattn/kernels/int8.hpp>

namespace ctattn_test::int8_kernel_cases {

inline constexpr std::size_t width = 73;

struct operands {
  std::int8_t a[3][width]{};
  std::int8_t b[9][width]{};
};

// Operands from an LCG; the first entries of a and b are -128 and 127, the extremes a difference can reach.
constexpr operands make_operands(std::uint32_t seed) noexcept {
  operands o{};
  std::uint32_t state = seed;
  const auto next = [&state]() noexcept {
    state = state * 1664525u + 1013904223u;
    return static_cast<std::int8_t>(static_cast<std::int32_t>(state >> 24) - 128);
  };
  for (auto& row : o.a) {
    for (auto& v : row) v = next();
  }
  for (auto& row : o.b) {
    for (auto& v : row) v = next();
  }
  o.a[1][3] = -128;
  o.b[4][3] = 127;
  return o;
}

// The sums of int8_dot_rows for one K and one pair of zero points against the loop, over a window of columns
// [3, 3 + K) (K <= 70).
constexpr std::size_t dot_rows_mismatches(const operands& o, std::size_t k, std::int32_t a_zero,
                                          std::int32_t b_zero) noexcept {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    std::int32_t sums[9]{};
    ctattn::detail::kernels::int8_dot_rows<70>(o.a, i, 3, a_zero, o.b, 0, 3, b_zero, k, 9, sums);
    for (std::size_t j = 0; j < 9; ++j) {
      std::int32_t want = 0;
      for (std::size_t t = 3; t < 3 + k; ++t) want += (o.a[i][t] - a_zero) * (o.b[j][t] - b_zero);
      bad += sums[j] == want ? 0u : 1u;
    }
  }
  return bad;
}

inline constexpr std::int32_t zero_points[][2] = {{0, 0}, {-128, 127}, {127, -128}, {-3, 17}};

// Every K from `first` to `last` with every pair of zero points.
template <typename Read>
constexpr std::size_t all_mismatches(Read read, std::size_t first = 1, std::size_t last = 70) noexcept {
  const operands o = read(make_operands(7));
  std::size_t bad = 0;
  for (std::size_t k = first; k <= last; ++k) {
    for (const auto& z : zero_points) bad += dot_rows_mismatches(o, k, z[0], z[1]);
  }
  return bad;
}

}  // namespace ctattn_test::int8_kernel_cases
