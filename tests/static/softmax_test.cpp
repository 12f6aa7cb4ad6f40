// Static tests of the stable softmax: the hard rows of the PyTorch fixture, evaluated by the compiler.
#include "fixtures/attention/softmax_hard_rows.hpp"

#include <ctattn/attention/softmax.hpp>
#include <ctattn/math/exp.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/elementwise.hpp>
#include <ctattn/matrix/from_array.hpp>

#include <limits>

namespace {

namespace fx = ctattn_fixtures::softmax_hard_rows;

// Within one float ulp (relative 2^-23) of the float64 result rounded to float, when x - max is exact. When it
// is not (mixed_scale: 0.001 - 30 rounds), float's rounding of x - max, up to ulp(30) / 2 = 2^-20, becomes a
// relative error of exp(x - max): the bound is then 2^-20 plus a few ulp.
template <std::size_t N>
constexpr bool softmax_matches(const float (&input)[N], const float (&expected)[N], float relative = 1.2e-7f) {
  const auto w = ctattn::softmax_rows(ctattn::row_from_array(input));
  return ctattn::approx_equal(w, ctattn::row_from_array(expected), 0.0f, relative);
}

template <std::size_t N>
constexpr bool softmax_matches_double(const float (&input)[N], const double (&expected)[N]) {
  double row[1][N]{};
  for (std::size_t j = 0; j < N; ++j) row[0][j] = static_cast<double>(input[j]);
  const auto w = ctattn::softmax_rows(ctattn::from_array(row));
  return ctattn::approx_equal(w, ctattn::row_from_array(expected), 0.0, 4e-16);
}

static_assert(softmax_matches(fx::large_positive::input, fx::large_positive::softmax));
static_assert(softmax_matches(fx::large_negative::input, fx::large_negative::softmax));
static_assert(softmax_matches(fx::overflow_float::input, fx::overflow_float::softmax));
static_assert(softmax_matches(fx::with_neg_inf::input, fx::with_neg_inf::softmax));
static_assert(softmax_matches(fx::equal::input, fx::equal::softmax));
static_assert(softmax_matches(fx::mixed_scale::input, fx::mixed_scale::softmax, 0x1p-20f + 3 * 0x1p-24f));
static_assert(!softmax_matches(fx::mixed_scale::input, fx::mixed_scale::softmax));  // the bound above is needed
static_assert(softmax_matches_double(fx::large_positive::input, fx::large_positive::softmax_f64));
static_assert(softmax_matches_double(fx::overflow_float::input, fx::overflow_float::softmax_f64));
static_assert(softmax_matches_double(fx::mixed_scale::input, fx::mixed_scale::softmax_f64));

// logsumexp: within 2 float ulp of torch.logsumexp in float64 rounded to float, and 4e-16 relative in double.
template <std::size_t N>
constexpr bool logsumexp_matches(const float (&input)[N], const float (&expected)[1], const double (&expected_f64)[1]) {
  const auto lse = ctattn::logsumexp_rows(ctattn::row_from_array(input));
  double row[1][N]{};
  for (std::size_t j = 0; j < N; ++j) row[0][j] = static_cast<double>(input[j]);
  const auto lse_double = ctattn::logsumexp_rows(ctattn::from_array(row));
  return ctattn::approx_equal(lse, ctattn::from_array<1, 1>({{expected[0]}}), 0.0f, 2.4e-7f) &&
         ctattn::approx_equal(lse_double, ctattn::from_array<1, 1>({{expected_f64[0]}}), 0.0, 4e-16);
}
static_assert(logsumexp_matches(fx::large_positive::input, fx::large_positive::logsumexp,
                                fx::large_positive::logsumexp_f64));
static_assert(logsumexp_matches(fx::large_negative::input, fx::large_negative::logsumexp,
                                fx::large_negative::logsumexp_f64));
static_assert(logsumexp_matches(fx::overflow_float::input, fx::overflow_float::logsumexp,
                                fx::overflow_float::logsumexp_f64));
static_assert(logsumexp_matches(fx::with_neg_inf::input, fx::with_neg_inf::logsumexp, fx::with_neg_inf::logsumexp_f64));
static_assert(logsumexp_matches(fx::equal::input, fx::equal::logsumexp, fx::equal::logsumexp_f64));
static_assert(logsumexp_matches(fx::mixed_scale::input, fx::mixed_scale::logsumexp, fx::mixed_scale::logsumexp_f64));
// softmax = exp(x - logsumexp): the two agree.
constexpr ctattn::matrix<float, 1, 3> three{{{0.5f, -1.0f, 2.0f}}};
static_assert(ctattn::approx_equal(ctattn::softmax_rows(three),
                                   ctattn::map(three -
                                                   ctattn::matrix<float, 1, 3>{{{ctattn::logsumexp_rows(three)(0, 0),
                                                                                 ctattn::logsumexp_rows(three)(0, 0),
                                                                                 ctattn::logsumexp_rows(three)(0, 0)}}},
                                               [](float v) { return ctattn::math::exp(v); }),
                                   0.0f, 4e-7f));

// Edges: a fully masked row gives zeros; +inf entries share the weight.
constexpr float inf = std::numeric_limits<float>::infinity();
static_assert(ctattn::softmax_rows(ctattn::matrix<float, 1, 3>{{{-inf, -inf, -inf}}}) ==
              ctattn::matrix<float, 1, 3>{{{0, 0, 0}}});
static_assert(ctattn::softmax_rows(ctattn::matrix<float, 1, 4>{{{inf, 1, inf, -inf}}}) ==
              ctattn::matrix<float, 1, 4>{{{0.5f, 0, 0.5f, 0}}});
static_assert(ctattn::softmax_rows(ctattn::matrix<float, 1, 1>{{{-3.5f}}})(0, 0) == 1.0f);
static_assert(ctattn::logsumexp_rows(ctattn::matrix<float, 1, 3>{{{-inf, -inf, -inf}}})(0, 0) == -inf);
static_assert(ctattn::logsumexp_rows(ctattn::matrix<float, 1, 3>{{{1, inf, 2}}})(0, 0) == inf);
static_assert(ctattn::logsumexp_rows(ctattn::matrix<float, 1, 1>{{{-3.5f}}})(0, 0) == -3.5f);

}  // namespace
