// Static tests of the stable softmax: the hard rows of the PyTorch fixture, evaluated by the compiler.
#include "fixtures/attention/softmax_hard_rows.hpp"

#include <ctattn/attention/softmax.hpp>
#include <ctattn/matrix/compare.hpp>
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

// Edges: a fully masked row gives zeros; +inf entries share the weight.
constexpr float inf = std::numeric_limits<float>::infinity();
static_assert(ctattn::softmax_rows(ctattn::matrix<float, 1, 3>{{{-inf, -inf, -inf}}}) ==
              ctattn::matrix<float, 1, 3>{{{0, 0, 0}}});
static_assert(ctattn::softmax_rows(ctattn::matrix<float, 1, 4>{{{inf, 1, inf, -inf}}}) ==
              ctattn::matrix<float, 1, 4>{{{0.5f, 0, 0.5f, 0}}});
static_assert(ctattn::softmax_rows(ctattn::matrix<float, 1, 1>{{{-3.5f}}})(0, 0) == 1.0f);

}  // namespace
