// ctattn::math::sin and cos in constant evaluation: every reference point within the accuracy bound
// (including the hardest arguments for range reduction), and the edges.
#include "ctattn/math/sin_cos.hpp"

#include <limits>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;
using ctattn::math::cos;
using ctattn::math::sin;

template <class T>
constexpr bool edges() {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity();
  const T nan = lim::quiet_NaN();
  return ref::bits_of(sin(T(0))) == 0 && ref::bits_of(sin(-T(0))) == ref::bits_of(-T(0)) &&  // sign of zero
         cos(T(0)) == T(1) && cos(-T(0)) == T(1) && sin(lim::denorm_min()) == lim::denorm_min() &&
         sin(-lim::denorm_min()) == -lim::denorm_min() && cos(lim::denorm_min()) == T(1) &&
         ref::bits_of(sin(inf)) == ref::bits_of(nan) && ref::bits_of(sin(-inf)) == ref::bits_of(nan) &&
         ref::bits_of(cos(inf)) == ref::bits_of(nan) && ref::bits_of(cos(-inf)) == ref::bits_of(nan) &&
         ref::bits_of(sin(-nan)) == ref::bits_of(-nan) && ref::bits_of(cos(-nan)) == ref::bits_of(-nan) &&
         // odd and even: exact symmetry at any magnitude
         sin(-lim::max()) == -sin(lim::max()) && cos(-lim::max()) == cos(lim::max()) && sin(T(-3)) == -sin(T(3)) &&
         cos(T(-3)) == cos(T(3)) && sin(lim::max()) >= T(-1) && sin(lim::max()) <= T(1);
}

static_assert(ref::max_ulp_error(ref::sin_float, [](float x) { return sin(x); }) <= 1);
static_assert(ref::max_ulp_error(ref::cos_float, [](float x) { return cos(x); }) <= 1);
static_assert(ref::max_ulp_error(ref::sin_double, [](double x) { return sin(x); }) <= 2);
static_assert(ref::max_ulp_error(ref::cos_double, [](double x) { return cos(x); }) <= 2);
static_assert(edges<float>());
static_assert(edges<double>());

// The hardest argument of all doubles for reduction (closest to a multiple of pi/2): its cosine is ~2^-61.
static_assert(cos(6381956970095103.0 * 0x1p797) == -0x1.14ae72e6ba22fp-61);
static_assert(sin(1e22) == -0x1.b453ab76bf397p-1);

}  // namespace
