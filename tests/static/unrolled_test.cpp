// The unrolled helpers of the constant-evaluated kernels (ctattn/kernels/constant.hpp) against the plain loops
// whose order they promise to keep: equal values, in constant evaluation, for rows shorter than one fold, exactly
// one fold, and longer (64 + 36, 64 + 64 + 2).
#include <ctattn/kernels/constant.hpp>

#include "support/test_data.hpp"

#include <cstddef>

namespace {

constexpr float a3[3]{1, 2, 3};
constexpr float b3[3]{4, 5, 6};
static_assert(ctattn::detail::unrolled_dot(a3, b3) == 32.0f);

template <typename T, std::size_t N>
struct row_pair {
  T a[N];
  T b[N];
};

template <typename T, std::size_t N>
constexpr row_pair<T, N> random_rows(std::uint32_t seed) {
  row_pair<T, N> rows{};
  ctattn_test::lcg g{seed};
  for (std::size_t c = 0; c < N; ++c) rows.a[c] = static_cast<T>(g.next());
  for (std::size_t c = 0; c < N; ++c) rows.b[c] = static_cast<T>(g.next());
  return rows;
}

template <typename T, std::size_t N>
constexpr bool dot_keeps_the_loop_order() {
  const auto rows = random_rows<T, N>(static_cast<std::uint32_t>(N));
  T loop{0};
  for (std::size_t c = 0; c < N; ++c) loop += rows.a[c] * rows.b[c];
  return ctattn::detail::unrolled_dot(rows.a, rows.b) == loop;
}
static_assert(dot_keeps_the_loop_order<float, 1>());
static_assert(dot_keeps_the_loop_order<float, 63>());
static_assert(dot_keeps_the_loop_order<float, 64>());
static_assert(dot_keeps_the_loop_order<float, 100>());
static_assert(dot_keeps_the_loop_order<double, 130>());

template <typename T, std::size_t N>
constexpr bool axpy_keeps_the_loop_order() {
  const auto rows = random_rows<T, N>(static_cast<std::uint32_t>(N) + 7u);
  T unrolled[N]{};
  T loop[N]{};
  for (std::size_t step = 0; step < 3; ++step) {
    const T s = rows.a[step] * T(3);
    ctattn::detail::unrolled_axpy(unrolled, s, rows.b);
    for (std::size_t c = 0; c < N; ++c) loop[c] += s * rows.b[c];
  }
  for (std::size_t c = 0; c < N; ++c) {
    if (unrolled[c] != loop[c]) return false;
  }
  return true;
}
static_assert(axpy_keeps_the_loop_order<float, 5>());
static_assert(axpy_keeps_the_loop_order<float, 100>());
static_assert(axpy_keeps_the_loop_order<double, 130>());

// y = a b and y = a b^T against the i-k-j loop.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr bool products_keep_the_loop_order() {
  T a[R][K]{};
  T b[K][C]{};
  T b_transposed[C][K]{};
  ctattn_test::lcg g{R * 1000 + K * 10 + C};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) a[i][k] = static_cast<T>(g.next());
  }
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t c = 0; c < C; ++c) b_transposed[c][k] = b[k][c] = static_cast<T>(g.next());
  }
  T loop[R][C]{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) {
      for (std::size_t c = 0; c < C; ++c) loop[i][c] += a[i][k] * b[k][c];
    }
  }
  T product[R][C]{};
  T product_transposed[R][C]{};
  ctattn::detail::unrolled_product(product, a, b);
  ctattn::detail::unrolled_product_transposed(product_transposed, a, b_transposed);
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t c = 0; c < C; ++c) {
      if (product[i][c] != loop[i][c] || product_transposed[i][c] != loop[i][c]) return false;
    }
  }
  return true;
}
static_assert(products_keep_the_loop_order<float, 3, 5, 4>());
static_assert(products_keep_the_loop_order<float, 2, 100, 3>());
static_assert(products_keep_the_loop_order<double, 2, 65, 2>());

}  // namespace
