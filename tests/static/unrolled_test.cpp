// The unrolled helpers of the constant-evaluated kernels (ctattn/kernels/constant.hpp) against the plain loops
// whose order they promise to keep: equal values, in constant evaluation, for rows shorter than one fold, exactly
// one fold, and longer (64 + 36, 64 + 64 + 2). With GCC the products run on vector lanes (`lane_row`): rows shorter
// than one vector, of exactly 32 lanes, and longer (32 + 1, 4 x 32 + 2). Attention's two forms are held to the
// scalar kernel's bits at run time (tests/runtime/unrolled_kernels_test.cpp) and here to ignoring the keys outside
// a query's range; GCC's exponential on lanes (attention's softmax) is held here to math::exp's bits.
#include <ctattn/ctattn.hpp>
#include <ctattn/kernels/constant.hpp>

#include "support/test_data.hpp"

#include <bit>
#include <cstddef>
#include <limits>

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
static_assert(products_keep_the_loop_order<float, 3, 7, 32>());
static_assert(products_keep_the_loop_order<float, 2, 9, 33>());
static_assert(products_keep_the_loop_order<double, 2, 5, 130>());
static_assert(products_keep_the_loop_order<float, 1, 1, 1>());

// Keys 3 to 9 lie outside every query's range (`key_padding_length{3}`) but share a vector with keys 0 to 2 on GCC;
// their products with the queries overflow float (1e30 x 1e10) and their values are 1e30. The output must be
// that of keys 0 to 2 alone: their scores are equal (zero keys), so each output is the mean of their value rows.
// The fold form never multiplies by a key outside the range (both compilers reject an overflow in a constant
// expression); GCC's vector lanes do, get infinities, and must not read them.
template <typename Mask>
constexpr bool keys_outside_the_range_change_nothing(const Mask& mask) {
  ctattn::matrix<float, 4, 8> q{};
  ctattn::matrix<float, 10, 8> k{};
  ctattn::matrix<float, 10, 3> v{};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t c = 0; c < 8; ++c) q(i, c) = 1e10f;
  }
  for (std::size_t j = 0; j < 10; ++j) {
    for (std::size_t c = 0; c < 8; ++c) k(j, c) = j < 3 ? 0.0f : 1e30f;
    for (std::size_t c = 0; c < 3; ++c) v(j, c) = j < 3 ? static_cast<float>(j * 3 + c) : 1e30f;
  }
  const auto out = ctattn::scaled_dot_product_attention(q, k, v, mask);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t c = 0; c < 3; ++c) {
      const float mean = (static_cast<float>(c) + static_cast<float>(3 + c) + static_cast<float>(6 + c)) / 3.0f;
      const float d = out(i, c) - mean;
      if (d > 1e-5f || d < -1e-5f) return false;
    }
  }
  return true;
}
static_assert(keys_outside_the_range_change_nothing(ctattn::key_padding_length{3}));

// GCC's softmax takes its exponentials on vector lanes (`lanes_exp`): each lane must have math::exp's bits, from
// past the underflow (+0) through the subnormal results (below -87.34 for float, -708.4 for double) to 0, and +0
// for -inf. Other compilers keep math::exp itself.
template <typename T, std::size_t Lanes>
constexpr bool lanes_exp_has_the_bits_of_exp(T first, T step, std::size_t count) {
  if constexpr (ctattn::detail::evaluates_lanes<T>) {
    using bits = ctattn::math::detail::bits_t<T>;
    for (std::size_t i = 0; i < count; i += Lanes) {
      T x[Lanes]{};
      for (std::size_t l = 0; l < Lanes; ++l) {
        x[l] = i + l == 0 ? -std::numeric_limits<T>::infinity() : first + step * static_cast<T>(i + l);
        if (x[l] > T{0}) x[l] = T{0};
      }
      ctattn::detail::lane_row<T, Lanes> lanes{};
      ctattn::detail::load_segment(lanes, x, 0);
      ctattn::detail::lanes_exp(lanes.chunk[0]);
      for (std::size_t l = 0; l < Lanes; ++l) {
        if (std::bit_cast<bits>(ctattn::detail::lane(lanes, l)) != std::bit_cast<bits>(ctattn::math::exp(x[l])))
          return false;
      }
    }
  }
  return true;
}
static_assert(lanes_exp_has_the_bits_of_exp<float, 32>(-110.0f, 0.0371f, 3008));
static_assert(lanes_exp_has_the_bits_of_exp<float, 8>(-104.0f, 0.00113f, 17000));  // underflow and subnormals
static_assert(lanes_exp_has_the_bits_of_exp<double, 4>(-750.0, 0.259, 2900));
static_assert(lanes_exp_has_the_bits_of_exp<double, 32>(-746.0, 0.00137, 30000));  // to -704.9

}  // namespace
