// Run-time tests of the matrix operations: the same calls as in constant evaluation give the same bits, and
// products agree with a double-precision computation.
#include "catch.hpp"
#include "support/test_data.hpp"

#include <ctattn/ctattn.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace {

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};

using ctattn_test::bit_identical;
using ctattn_test::opaque;
using ctattn_test::random_matrix;

}  // namespace

TEMPLATE_TEST_CASE("a product computed at run time has the bits of the constant-evaluated one", "[matrix]", float,
                   double) {
  using a_type = ctattn::matrix<TestType, seq{7}, d_model{13}>;
  using b_type = ctattn::matrix<TestType, d_model{13}, 5>;
  static constexpr a_type a = random_matrix<a_type>(1);
  static constexpr b_type b = random_matrix<b_type>(2);
  static constexpr auto compile_time = ctattn::multiply(a, b);
  const auto run_time = ctattn::multiply(opaque(a), opaque(b));
  CHECK(bit_identical(run_time, compile_time));

  static constexpr auto chain_compile_time = ctattn::transpose(a) * (a * b) + ctattn::transpose(a) * (a * b);
  const auto chain_run_time =
      ctattn::transpose(opaque(a)) * (opaque(a) * opaque(b)) + ctattn::transpose(opaque(a)) * (opaque(a) * opaque(b));
  CHECK(bit_identical(chain_run_time, chain_compile_time));
}

TEMPLATE_TEST_CASE("a product agrees with a double-precision reference", "[matrix]", float, double) {
  using a_type = ctattn::matrix<TestType, 9, 31>;
  using b_type = ctattn::matrix<TestType, 31, 11>;
  const auto a = random_matrix<a_type>(3);
  const auto b = random_matrix<b_type>(4);
  const auto c = opaque(a) * opaque(b);
  for (std::size_t i = 0; i < a_type::rows; ++i) {
    for (std::size_t j = 0; j < b_type::cols; ++j) {
      long double reference = 0;
      long double magnitude = 0;
      for (std::size_t k = 0; k < a_type::cols; ++k) {
        reference += static_cast<long double>(a(i, k)) * static_cast<long double>(b(k, j));
        magnitude += std::fabs(static_cast<long double>(a(i, k)) * static_cast<long double>(b(k, j)));
      }
      // Summation error bound for K terms: K * eps * sum |a_ik b_kj|.
      const long double bound = 31 * static_cast<long double>(std::numeric_limits<TestType>::epsilon()) * magnitude;
      CHECK(std::fabs(static_cast<long double>(c(i, j)) - reference) <= bound);
    }
  }
}

TEST_CASE("matrix operations at run time match their definitions", "[matrix]") {
  using m34 = ctattn::matrix<float, 3, 4>;
  const auto a = opaque(random_matrix<m34>(5));
  const auto b = opaque(random_matrix<m34>(6));
  const auto sum = a + b;
  const auto difference = a - b;
  const auto product = ctattn::hadamard(a, b);
  const auto scaled = 3.0f * a;
  const auto transposed = ctattn::transpose(a);
  const auto maxima = ctattn::row_max(a);
  const auto sums = ctattn::row_sum(a);
  for (std::size_t i = 0; i < 3; ++i) {
    float row_maximum = a(i, 0);
    float row_total = 0.0f;
    for (std::size_t j = 0; j < 4; ++j) {
      CHECK(sum(i, j) == a(i, j) + b(i, j));
      CHECK(difference(i, j) == a(i, j) - b(i, j));
      CHECK(product(i, j) == a(i, j) * b(i, j));
      CHECK(scaled(i, j) == 3.0f * a(i, j));
      CHECK(transposed(j, i) == a(i, j));
      row_maximum = a(i, j) > row_maximum ? a(i, j) : row_maximum;
      row_total += a(i, j);
    }
    CHECK(maxima(i, 0) == row_maximum);
    CHECK(sums(i, 0) == row_total);
  }
  const auto heads = ctattn::split_columns<2>(a);
  CHECK(ctattn::concat_columns(heads) == a);
  CHECK(heads[1](2, 1) == a(2, 3));
  CHECK(ctattn::row(a, 2) == ctattn::row<2>(a));
}

TEST_CASE("approx_equal rejects NaN and accepts values within the tolerance", "[matrix]") {
  ctattn::matrix<float, 1, 3> a{{{1.0f, 2.0f, 3.0f}}};
  auto b = a;
  CHECK(ctattn::approx_equal(a, b, 0.0f));
  b(0, 1) = std::nextafter(2.0f, 3.0f);
  CHECK_FALSE(ctattn::approx_equal(a, b, 0.0f));
  CHECK(ctattn::approx_equal(a, b, 1e-6f));
  b(0, 2) = std::nanf("");
  CHECK_FALSE(ctattn::approx_equal(a, b, 1.0f));
  CHECK(std::isnan(ctattn::max_abs_difference(a, b)));
  b(0, 2) = std::numeric_limits<float>::infinity();
  CHECK_FALSE(ctattn::approx_equal(a, b, 1e30f));
  a(0, 2) = b(0, 2);
  CHECK(ctattn::approx_equal(a, b, 1e-6f));
}

TEST_CASE("from_span takes run-time data of the right length only", "[matrix]") {
  using weights = ctattn::matrix<float, seq{2}, d_model{3}>;
  const std::vector<float> buffer{1, 2, 3, 4, 5, 6};
  const auto w = ctattn::from_span<weights>(buffer);
  REQUIRE(w.has_value());
  CHECK((*w)(0, 2) == 3.0f);
  CHECK((*w)(1, 0) == 4.0f);
  CHECK(*w == ctattn::from_array<seq{2}, d_model{3}>({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}));
  // Too short, too long, empty: no matrix at all, and nothing past the end is read.
  const std::vector<float> short_buffer{1, 2, 3, 4, 5};
  CHECK_FALSE(ctattn::from_span<weights>(short_buffer).has_value());
  CHECK_FALSE(ctattn::from_span<weights>(std::span<const float>(buffer.data(), 0)).has_value());
  const std::vector<float> long_buffer{1, 2, 3, 4, 5, 6, 7};
  CHECK_FALSE(ctattn::from_span<weights>(long_buffer).has_value());
  // A fixed-size array is checked at compile time and converts directly.
  constexpr std::array<float, 6> fixed{6, 5, 4, 3, 2, 1};
  static_assert(ctattn::from_span<weights>(fixed)->operator()(1, 2) == 1.0f);
  CHECK(ctattn::from_span<weights>(fixed)->operator()(0, 0) == 6.0f);
}
