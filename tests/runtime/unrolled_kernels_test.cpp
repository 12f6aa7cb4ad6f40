// The kernels take a different form when constant-evaluated (unrolled folds over local copies, or with GCC row
// updates on vector lanes: see ctattn/kernels/constant.hpp) from the loops they run at run time. These tests hold
// the two forms to the same bits: every kernel, every mask kind, float and double, on widths that exercise the
// 64-term chunks of the folds (100 = 64 + 36, 130 = 64 + 64 + 2), the 32-lane vectors (7 keys, 70 = 2 x 32 + 6,
// 130 keys under a sliding window whose ranges start and end inside a vector) and on multi-head column windows.
#include "catch.hpp"
#include "support/test_data.hpp"

#include <ctattn/ctattn.hpp>

#include <cstddef>
#include <limits>

namespace {

using ctattn_test::bit_identical;
using ctattn_test::opaque;
using ctattn_test::random_matrix;

// Queries, keys and values of widths 100 (d_k) and 70 (d_v), 5 queries against 7 keys.
template <typename T>
struct operands {
  ctattn::matrix<T, 5, 100> q = random_matrix<ctattn::matrix<T, 5, 100>>(11);
  ctattn::matrix<T, 7, 100> k = random_matrix<ctattn::matrix<T, 7, 100>>(12);
  ctattn::matrix<T, 7, 70> v = random_matrix<ctattn::matrix<T, 7, 70>>(13);
};

constexpr ctattn::boolean_mask<5, 7> alternate_keys() {
  ctattn::boolean_mask<5, 7> mask{};
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 7; ++j) mask.allowed_keys[i][j] = (i + j) % 2 == 0 || j == 0;
  }
  return mask;
}

constexpr ctattn::key_padding_flags<7> every_third_key_missing() {
  ctattn::key_padding_flags<7> mask{};
  for (std::size_t j = 0; j < 7; ++j) mask.valid[j] = j % 3 != 2;
  return mask;
}

// One constant-evaluated result against the same call at run time, with the inputs hidden from the optimizer.
#define CTATTN_CHECK_BITS(T, mask_expression)                                                                  \
  do {                                                                                                         \
    static constexpr operands<T> in{};                                                                         \
    static constexpr auto compile_time =                                                                       \
        ctattn::scaled_dot_product_attention(in.q, in.k, in.v, mask_expression, ctattn::with_weights);         \
    const auto run_time = ctattn::scaled_dot_product_attention(opaque(in.q), opaque(in.k), opaque(in.v),       \
                                                               opaque(mask_expression), ctattn::with_weights); \
    CHECK(bit_identical(run_time.output, compile_time.output));                                                \
    CHECK(bit_identical(run_time.weights, compile_time.weights));                                              \
  } while (false)

template <typename T>
void check_every_mask() {
  CTATTN_CHECK_BITS(T, ctattn::no_mask);
  CTATTN_CHECK_BITS(T, ctattn::causal);
  CTATTN_CHECK_BITS(T, ctattn::causal_bottom_right);
  CTATTN_CHECK_BITS(T, ctattn::key_padding_length{3});
  CTATTN_CHECK_BITS(T, every_third_key_missing());
  CTATTN_CHECK_BITS(T, alternate_keys());
  CTATTN_CHECK_BITS(T, ctattn::additive_bias((random_matrix<ctattn::matrix<T, 5, 7>>(14))));
  CTATTN_CHECK_BITS(T, ctattn::combine_masks(ctattn::causal, alternate_keys()));
}

template <typename T>
void check_square_masks() {
  static constexpr auto x = random_matrix<ctattn::matrix<T, 9, 130>>(21);
  static constexpr auto y = random_matrix<ctattn::matrix<T, 9, 66>>(22);
  static constexpr auto window = ctattn::scaled_dot_product_attention(x, x, y, ctattn::sliding_window<2>);
  static constexpr auto causal_window = ctattn::scaled_dot_product_attention(x, x, y, ctattn::causal_sliding_window<1>);
  CHECK(bit_identical(ctattn::scaled_dot_product_attention(opaque(x), opaque(x), opaque(y), ctattn::sliding_window<2>),
                      window));
  CHECK(bit_identical(
      ctattn::scaled_dot_product_attention(opaque(x), opaque(x), opaque(y), ctattn::causal_sliding_window<1>),
      causal_window));
}

}  // namespace

TEST_CASE("constant-evaluated attention has the bits of run-time attention, for every mask kind", "[unrolled]") {
  SECTION("float") { check_every_mask<float>(); }
  SECTION("double") { check_every_mask<double>(); }
  SECTION("sliding windows, float") { check_square_masks<float>(); }
  SECTION("sliding windows, double") { check_square_masks<double>(); }
}

TEST_CASE("constant-evaluated attention over long key rows has the run-time bits", "[unrolled]") {
  // 130 keys: the causal masks give key ranges from 1 to 130 keys, the padding and the window others.
  static constexpr auto q = random_matrix<ctattn::matrix<float, 12, 8>>(61);
  static constexpr auto k = random_matrix<ctattn::matrix<float, 130, 8>>(62);
  static constexpr auto v = random_matrix<ctattn::matrix<float, 130, 5>>(63);
  static constexpr auto plain = ctattn::scaled_dot_product_attention(q, k, v);
  static constexpr auto top_left = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
  static constexpr auto bottom_right = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal_bottom_right);
  static constexpr auto padded = ctattn::scaled_dot_product_attention(q, k, v, ctattn::key_padding_length{70});
  const auto qr = opaque(q);
  const auto kr = opaque(k);
  const auto vr = opaque(v);
  CHECK(bit_identical(ctattn::scaled_dot_product_attention(qr, kr, vr), plain));
  CHECK(bit_identical(ctattn::scaled_dot_product_attention(qr, kr, vr, ctattn::causal), top_left));
  CHECK(bit_identical(ctattn::scaled_dot_product_attention(qr, kr, vr, ctattn::causal_bottom_right), bottom_right));
  CHECK(
      bit_identical(ctattn::scaled_dot_product_attention(qr, kr, vr, opaque(ctattn::key_padding_length{70})), padded));

  static constexpr auto x = random_matrix<ctattn::matrix<double, 130, 4>>(64);
  static constexpr auto window = ctattn::scaled_dot_product_attention(x, x, x, ctattn::sliding_window<30>);
  CHECK(bit_identical(ctattn::scaled_dot_product_attention(opaque(x), opaque(x), opaque(x), ctattn::sliding_window<30>),
                      window));
}

// Queries against keys whose scores lie 1.5 `spread` apart and more: the softmax's exponentials reach below the
// normal range (float: exp(-90) is subnormal) and past the underflow (exp(-120) is +0). GCC's constant-evaluated
// softmax takes them on vector lanes (`lanes_exp`), the run time from math::exp.
template <typename T>
struct wide_operands {
  ctattn::matrix<T, 3, 4> q{};
  ctattn::matrix<T, 10, 4> k{};
  ctattn::matrix<T, 10, 3> v{};
  constexpr explicit wide_operands(T spread) {
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t c = 0; c < 4; ++c) q(i, c) = spread * (T{1} + static_cast<T>(i) * T(0.37));
    }
    for (std::size_t j = 0; j < 10; ++j) {
      for (std::size_t c = 0; c < 4; ++c) k(j, c) = T(0.75) * static_cast<T>(j) + T(0.01) * static_cast<T>(c);
      for (std::size_t c = 0; c < 3; ++c) v(j, c) = static_cast<T>(j * 3 + c + 1);
    }
  }
};

// The first query's row reaches a subnormal weight (key 3) and a +0 one (key 2): for float at a spread of 10,
// exp(-90) and exp(-105); for double at 80, exp(-720) and exp(-840).
template <typename T, int Spread>
void check_wide_scores() {
  static constexpr wide_operands<T> in{static_cast<T>(Spread)};
  static constexpr auto compile_time = ctattn::scaled_dot_product_attention(in.q, in.k, in.v, ctattn::with_weights);
  const auto run_time =
      ctattn::scaled_dot_product_attention(opaque(in.q), opaque(in.k), opaque(in.v), ctattn::with_weights);
  CHECK(bit_identical(run_time.output, compile_time.output));
  CHECK(bit_identical(run_time.weights, compile_time.weights));
  CHECK(compile_time.weights(0, 3) > T{0});
  CHECK(compile_time.weights(0, 3) < std::numeric_limits<T>::min());
  CHECK(compile_time.weights(0, 2) == T{0});
}

TEST_CASE("constant-evaluated softmax has the run-time bits where exp is subnormal or +0", "[unrolled]") {
  check_wide_scores<float, 10>();   // scores 15 j apart and more
  check_wide_scores<double, 80>();  // 120 j apart and more
}

TEST_CASE("a key masked out is never read, in either form", "[unrolled]") {
  // Key 1 holds +inf in its value row; the mask hides it from every query. 0 * inf would be NaN, so a kernel
  // that multiplied instead of skipping would be caught here.
  static constexpr auto q = random_matrix<ctattn::matrix<float, 3, 8>>(31);
  static constexpr auto k = random_matrix<ctattn::matrix<float, 4, 8>>(32);
  static constexpr auto v = [] {
    auto m = random_matrix<ctattn::matrix<float, 4, 5>>(33);
    m(1, 2) = std::numeric_limits<float>::infinity();
    return m;
  }();
  static constexpr ctattn::key_padding_flags<4> without_key_1{{true, false, true, true}};
  static constexpr auto compile_time = ctattn::scaled_dot_product_attention(q, k, v, without_key_1);
  const auto run_time = ctattn::scaled_dot_product_attention(opaque(q), opaque(k), opaque(v), opaque(without_key_1));
  CHECK(bit_identical(run_time, compile_time));
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t c = 0; c < 5; ++c) CHECK(run_time(i, c) == run_time(i, c));  // no NaN
  }
}

TEST_CASE("constant-evaluated products and projections have the bits of the run-time loops", "[unrolled]") {
  static constexpr auto a = random_matrix<ctattn::matrix<float, 5, 100>>(41);
  static constexpr auto b = random_matrix<ctattn::matrix<float, 100, 130>>(42);
  static constexpr auto product = a * b;
  CHECK(bit_identical(opaque(a) * opaque(b), product));

  static constexpr auto ad = random_matrix<ctattn::matrix<double, 3, 65>>(43);
  static constexpr auto bd = random_matrix<ctattn::matrix<double, 65, 2>>(44);
  static constexpr auto product_double = ad * bd;
  CHECK(bit_identical(opaque(ad) * opaque(bd), product_double));

  static constexpr ctattn::linear<float, 100, 70, ctattn::in_by_out, true> in_by_out{
      random_matrix<ctattn::matrix<float, 100, 70>>(45), random_matrix<ctattn::matrix<float, 1, 70>>(46)};
  static constexpr ctattn::linear<float, 100, 70, ctattn::out_by_in, true> out_by_in{
      random_matrix<ctattn::matrix<float, 70, 100>>(47), random_matrix<ctattn::matrix<float, 1, 70>>(48)};
  static constexpr auto projected = ctattn::project(a, in_by_out);
  static constexpr auto projected_torch_layout = ctattn::project(a, out_by_in);
  CHECK(bit_identical(ctattn::project(opaque(a), opaque(in_by_out)), projected));
  CHECK(bit_identical(ctattn::project(opaque(a), opaque(out_by_in)), projected_torch_layout));
}

TEST_CASE("constant-evaluated multi-head attention has the bits of the run-time one, head windows included",
          "[unrolled]") {
  // 4 query heads sharing 2 key/value heads of width 8 (grouped-query), so every head reads a column window
  // at a nonzero offset, with biases and the causal mask.
  using weights = ctattn::grouped_query_attention_weights<float, 4, 2, 16, 8, ctattn::out_by_in, true>;
  static constexpr weights w{
      {random_matrix<ctattn::matrix<float, 32, 16>>(51), random_matrix<ctattn::matrix<float, 1, 32>>(52)},
      {random_matrix<ctattn::matrix<float, 16, 16>>(53), random_matrix<ctattn::matrix<float, 1, 16>>(54)},
      {random_matrix<ctattn::matrix<float, 16, 16>>(55), random_matrix<ctattn::matrix<float, 1, 16>>(56)},
      {random_matrix<ctattn::matrix<float, 16, 32>>(57), random_matrix<ctattn::matrix<float, 1, 16>>(58)}};
  static constexpr auto x = random_matrix<ctattn::matrix<float, 6, 16>>(59);
  static constexpr auto compile_time = ctattn::grouped_query_attention(x, x, x, w, ctattn::causal);
  const auto xr = opaque(x);
  CHECK(bit_identical(ctattn::grouped_query_attention(xr, xr, xr, opaque(w), ctattn::causal), compile_time));
}
