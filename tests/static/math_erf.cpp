// ctattn::math::erf in constant evaluation: every reference point within the accuracy bound, and the edges.
#include "ctattn/math/erf.hpp"

#include <limits>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;
using ctattn::math::erf;

template <class T>
constexpr bool edges(T one) {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity();
  const T nan = lim::quiet_NaN();
  return ref::bits_of(erf(T(0))) == 0 && ref::bits_of(erf(-T(0))) == ref::bits_of(-T(0)) && erf(inf) == T(1) &&
         erf(-inf) == T(-1) && erf(lim::max()) == T(1) && erf(-lim::max()) == T(-1) &&
         ref::bits_of(erf(-nan)) == ref::bits_of(-nan) &&
         // subnormal arguments: 2x/sqrt(pi), still subnormal, odd
         erf(lim::denorm_min()) == lim::denorm_min() && erf(4 * lim::denorm_min()) == 5 * lim::denorm_min() &&
         erf(-4 * lim::denorm_min()) == -5 * lim::denorm_min() &&
         // saturation: `one` is the smallest argument whose rounded erf is 1
         erf(one) == T(1) && erf(ref::step(one, -1)) < T(1) && erf(-one) == T(-1) && erf(T(-2)) == -erf(T(2));
}

static_assert(ref::max_ulp_error(ref::erf_float, [](float x) { return erf(x); }) <= 1);
static_assert(ref::max_ulp_error(ref::erf_double, [](double x) { return erf(x); }) <= 2);
static_assert(edges(ref::erf_one_float));
static_assert(edges(ref::erf_one_double));
static_assert(erf(1.0) == 0x1.af767a741088bp-1);

}  // namespace
