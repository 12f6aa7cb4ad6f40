// Run-time tests of the stable softmax: hard rows, NaN propagation, and bit-identity with constant evaluation.
#include "catch.hpp"
#include "fixtures/attention/softmax_hard_rows.hpp"
#include "support/test_data.hpp"

#include <ctattn/attention/softmax.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/elementwise.hpp>
#include <ctattn/matrix/from_array.hpp>

#include <cmath>

namespace fx = ctattn_fixtures::softmax_hard_rows;

TEST_CASE("softmax of hard rows at run time is within one ulp of the exact result", "[softmax]") {
  // One ulp where x - max is exact; see tests/static/softmax_test.cpp for the mixed_scale bound.
  const auto check = [](const auto& input, const auto& expected, float relative = 1.2e-7f) {
    const auto w = ctattn::softmax_rows(ctattn_test::opaque(ctattn::row_from_array(input)));
    INFO("max difference " << ctattn::max_abs_difference(w, ctattn::row_from_array(expected)));
    CHECK(ctattn::approx_equal(w, ctattn::row_from_array(expected), 0.0f, relative));
  };
  check(fx::large_positive::input, fx::large_positive::softmax);
  check(fx::large_negative::input, fx::large_negative::softmax);
  check(fx::overflow_float::input, fx::overflow_float::softmax);
  check(fx::with_neg_inf::input, fx::with_neg_inf::softmax);
  check(fx::equal::input, fx::equal::softmax);
  check(fx::mixed_scale::input, fx::mixed_scale::softmax, 0x1p-20f + 3 * 0x1p-24f);
}

TEST_CASE("softmax at run time has the bits of the constant-evaluated softmax", "[softmax]") {
  static constexpr auto x = ctattn_test::random_matrix<ctattn::matrix<float, 8, 33>>(31);
  static constexpr auto compile_time = ctattn::softmax_rows(ctattn::scale(x, 40.0f));
  CHECK(ctattn_test::bit_identical(ctattn::softmax_rows(ctattn::scale(ctattn_test::opaque(x), 40.0f)), compile_time));
}

TEST_CASE("a NaN makes its row NaN and leaves the other rows alone", "[softmax]") {
  ctattn::matrix<float, 2, 3> x{{{1, std::nanf(""), 3}, {1, 2, 3}}};
  const auto w = ctattn::softmax_rows(x);
  for (std::size_t j = 0; j < 3; ++j) CHECK(std::isnan(w(0, j)));
  CHECK(std::fabs(w(1, 0) + w(1, 1) + w(1, 2) - 1.0f) < 1e-6f);
}

TEST_CASE("logsumexp of hard rows at run time matches PyTorch and the constant-evaluated bits", "[softmax]") {
  const auto check = [](const auto& input, const auto& expected) {
    const auto lse = ctattn::logsumexp_rows(ctattn_test::opaque(ctattn::row_from_array(input)));
    INFO("computed " << lse(0, 0) << ", torch " << expected[0]);
    CHECK(ctattn::approx_equal(lse, ctattn::from_array<1, 1>({{expected[0]}}), 0.0f, 2.4e-7f));
  };
  check(fx::large_positive::input, fx::large_positive::logsumexp);
  check(fx::large_negative::input, fx::large_negative::logsumexp);
  check(fx::overflow_float::input, fx::overflow_float::logsumexp);
  check(fx::with_neg_inf::input, fx::with_neg_inf::logsumexp);
  check(fx::equal::input, fx::equal::logsumexp);
  check(fx::mixed_scale::input, fx::mixed_scale::logsumexp);
  static constexpr auto x = ctattn_test::random_matrix<ctattn::matrix<float, 8, 33>>(37);
  static constexpr auto compile_time = ctattn::logsumexp_rows(ctattn::scale(x, 40.0f));
  CHECK(ctattn_test::bit_identical(ctattn::logsumexp_rows(ctattn::scale(ctattn_test::opaque(x), 40.0f)), compile_time));
  ctattn::matrix<float, 1, 2> with_nan{{{1.0f, std::nanf("")}}};
  CHECK(std::isnan(ctattn::logsumexp_rows(with_nan)(0, 0)));
}
