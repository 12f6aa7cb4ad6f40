// Inputs of the compile-time benchmarks: a matrix (any type with a public `elements[rows][cols]` of float) filled
// row by row from a 32-bit LCG, values in [-0.5, 0.5) with 24 significant bits. Plain C++, nothing of ctattn, so
// that compile_time_calibration.cpp can use it too.
#ifndef CTATTN_BENCHMARKS_COMPILE_TIME_INPUTS_HPP
#define CTATTN_BENCHMARKS_COMPILE_TIME_INPUTS_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>

template <typename M>
constexpr M lcg_filled(std::uint32_t state) {
  constexpr std::size_t rows = std::extent_v<decltype(M::elements), 0>;
  constexpr std::size_t cols = std::extent_v<decltype(M::elements), 1>;
  M m{};
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      state = state * 1664525u + 1013904223u;
      m.elements[i][j] = static_cast<float>(state >> 8) * 0x1p-24f - 0.5f;
    }
  }
  return m;
}

#endif  // CTATTN_BENCHMARKS_COMPILE_TIME_INPUTS_HPP
