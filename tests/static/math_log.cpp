// ctattn::math::log in constant evaluation: every reference point within the accuracy bound, and the edges.
#include "ctattn/math/log.hpp"

#include <limits>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;
using ctattn::math::log;

template <class T>
constexpr bool edges() {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity();
  const T nan = lim::quiet_NaN();
  return log(T(1)) == T(0) && ref::bits_of(log(T(1))) == 0 &&  // +0
         log(T(0)) == -inf && log(-T(0)) == -inf &&            // pole
         log(inf) == inf && log(-inf) != log(-inf) &&          // +inf, NaN
         log(-T(1)) != log(-T(1)) && log(-lim::denorm_min()) != log(-lim::denorm_min()) &&
         ref::bits_of(log(-T(1))) == ref::bits_of(nan) &&  // the positive quiet NaN
         ref::bits_of(log(-nan)) == ref::bits_of(-nan) &&  // a NaN argument comes back
         log(lim::denorm_min()) < log(lim::min()) && log(lim::min()) < T(0) && log(lim::max()) > T(88) &&
         log(lim::max()) < inf;
}

static_assert(ref::max_ulp_error(ref::log_float, [](float x) { return log(x); }) <= 1);
static_assert(ref::max_ulp_error(ref::log_double, [](double x) { return log(x); }) <= 2);
static_assert(edges<float>());
static_assert(edges<double>());

// subnormal arguments (exact reference values)
static_assert(ref::ulp_distance(log(0x1p-149f), -0x1.9d1da0p+6f) <= 1);        // -149 ln 2
static_assert(ref::ulp_distance(log(0x1p-1074), -0x1.74385446d71c3p+9) <= 2);  // -1074 ln 2
// near 1, where the result is tiny and must keep its relative accuracy
static_assert(ref::ulp_distance(log(ref::step(1.0f, 1)), 0x1.fffffep-24f) <= 1);
static_assert(ref::ulp_distance(log(ref::step(1.0, -1)), -0x1.0000000000000p-53) <= 2);
static_assert(log(2.0) == 0x1.62e42fefa39efp-1);

}  // namespace
