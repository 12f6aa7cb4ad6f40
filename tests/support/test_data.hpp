// Deterministic test inputs that the compiler and the run time generate identically.
#ifndef CTATTN_TESTS_SUPPORT_TEST_DATA_HPP
#define CTATTN_TESTS_SUPPORT_TEST_DATA_HPP

#include <ctattn/matrix/matrix.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace ctattn_test {

/// A 32-bit linear congruential generator: value in [-0.5, 0.5) with 24 significant bits, exact in float.
struct lcg {
  std::uint32_t state;
  constexpr float next() noexcept {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) * 0x1p-24f - 0.5f;
  }
};

/// A matrix filled row by row from an LCG seeded with `seed`.
template <typename M>
constexpr M random_matrix(std::uint32_t seed) noexcept {
  M m{};
  lcg g{seed};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m.elements[i][j] = static_cast<typename M::value_type>(g.next());
  }
  return m;
}

/// A fixture's C array as a matrix of element type T (the fixture is float or double; tests run both).
template <typename T, std::size_t R, std::size_t C, typename U>
constexpr ctattn::matrix<T, R, C> to_matrix(const U (&a)[R][C]) noexcept {
  ctattn::matrix<T, R, C> m{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) m.elements[i][j] = static_cast<T>(a[i][j]);
  }
  return m;
}

/// A fixture's 1-D C array as a 1 x N row of element type T.
template <typename T, std::size_t N, typename U>
constexpr ctattn::matrix<T, 1, N> to_row(const U (&a)[N]) noexcept {
  ctattn::matrix<T, 1, N> m{};
  for (std::size_t j = 0; j < N; ++j) m.elements[0][j] = static_cast<T>(a[j]);
  return m;
}

/// Whether two matrices hold the same bits (distinguishes -0 from +0, compares NaN payloads).
template <typename M>
bool bit_identical(const M& a, const M& b) noexcept {
  using bits = std::conditional_t<sizeof(typename M::value_type) == 4, std::uint32_t, std::uint64_t>;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (std::bit_cast<bits>(a.elements[i][j]) != std::bit_cast<bits>(b.elements[i][j])) return false;
    }
  }
  return true;
}

/// Hides a value from the optimizer, so that a "run-time" computation really runs at run time.
template <typename T>
T opaque(const T& value) noexcept {
  T copy = value;
  asm volatile("" : : "r"(&copy) : "memory");
  return copy;
}

}  // namespace ctattn_test

#endif  // CTATTN_TESTS_SUPPORT_TEST_DATA_HPP
