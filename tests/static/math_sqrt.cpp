// ctattn::math::sqrt in constant evaluation: correctly rounded at every reference point, and the edges.
#include "ctattn/math/sqrt.hpp"

#include <limits>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;
using ctattn::math::sqrt;

template <class T>
constexpr bool edges() {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity();
  const T nan = lim::quiet_NaN();
  return ref::bits_of(sqrt(T(0))) == 0 && ref::bits_of(sqrt(-T(0))) == ref::bits_of(-T(0)) &&  // +-0 kept
         sqrt(inf) == inf && sqrt(-inf) != sqrt(-inf) && sqrt(-T(1)) != sqrt(-T(1)) &&
         ref::bits_of(sqrt(-lim::denorm_min())) == ref::bits_of(nan) &&
         ref::bits_of(sqrt(-nan)) == ref::bits_of(-nan) && sqrt(T(4)) == T(2) && sqrt(T(0.25)) == T(0.5) &&
         sqrt(T(1)) == T(1) && sqrt(lim::max()) < inf && sqrt(lim::denorm_min()) > T(0);
}

// correctly rounded: 0 ulp
static_assert(ref::max_ulp_error(ref::sqrt_float, [](float x) { return sqrt(x); }) == 0);
static_assert(ref::max_ulp_error(ref::sqrt_double, [](double x) { return sqrt(x); }) == 0);
static_assert(edges<float>());
static_assert(edges<double>());
// exact squares of subnormal and huge powers of two, and round-to-nearest just below 4
static_assert(sqrt(0x1p-148f) == 0x1p-74f && sqrt(0x1p-1074) == 0x1p-537 && sqrt(0x1p+1022) == 0x1p+511);
static_assert(sqrt(ref::step(4.0f, -1)) == ref::step(2.0f, -1) && sqrt(ref::step(4.0, -1)) == ref::step(2.0, -1));
static_assert(sqrt(2.0f) == 0x1.6a09e6p+0f && sqrt(2.0) == 0x1.6a09e667f3bcdp+0);

}  // namespace
