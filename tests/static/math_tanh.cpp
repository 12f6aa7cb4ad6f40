// ctattn::math::tanh in constant evaluation: every reference point within the accuracy bound, and the edges.
#include "ctattn/math/tanh.hpp"

#include <limits>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;
using ctattn::math::tanh;

template <class T>
constexpr bool edges(T one) {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity();
  const T nan = lim::quiet_NaN();
  return ref::bits_of(tanh(T(0))) == 0 && ref::bits_of(tanh(-T(0))) == ref::bits_of(-T(0)) &&
         tanh(lim::denorm_min()) == lim::denorm_min() && tanh(-lim::denorm_min()) == -lim::denorm_min() &&
         tanh(inf) == T(1) && tanh(-inf) == T(-1) && tanh(lim::max()) == T(1) && tanh(-lim::max()) == T(-1) &&
         ref::bits_of(tanh(-nan)) == ref::bits_of(-nan) &&
         // saturation: `one` is the smallest argument whose rounded tanh is 1
         tanh(one) == T(1) && tanh(ref::step(one, -1)) < T(1) && tanh(-one) == T(-1) &&
         tanh(T(-0.75)) == -tanh(T(0.75));
}

static_assert(ref::max_ulp_error(ref::tanh_float, [](float x) { return tanh(x); }) <= 1);
static_assert(ref::max_ulp_error(ref::tanh_double, [](double x) { return tanh(x); }) <= 2);
static_assert(edges(ref::tanh_one_float));
static_assert(edges(ref::tanh_one_double));
static_assert(tanh(0.5f) == 0x1.d9353ep-2f);

}  // namespace
