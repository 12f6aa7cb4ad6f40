// ctattn::math::exp in constant evaluation: every reference point within the accuracy bound, and the edges.
#include "ctattn/math/exp.hpp"

#include <limits>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;
using ctattn::math::exp;

constexpr float inf_f = std::numeric_limits<float>::infinity();
constexpr double inf_d = std::numeric_limits<double>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();

static_assert(ref::max_ulp_error(ref::exp_float, [](float x) { return exp(x); }) <= 1);
static_assert(ref::max_ulp_error(ref::exp_double, [](double x) { return exp(x); }) <= 2);

// zeros, infinities, NaN
static_assert(exp(0.0f) == 1.0f && exp(-0.0f) == 1.0f && exp(0.0) == 1.0 && exp(-0.0) == 1.0);
static_assert(exp(inf_f) == inf_f && exp(inf_d) == inf_d);
static_assert(ref::bits_of(exp(-inf_f)) == 0 && ref::bits_of(exp(-inf_d)) == 0);  // +0
static_assert(exp(nan_f) != exp(nan_f) && exp(nan_d) != exp(nan_d));
static_assert(ref::bits_of(exp(-nan_f)) == ref::bits_of(-nan_f));  // the NaN itself

// overflow threshold: the largest argument with a finite result, and the next one
// (their exact results are in the reference table too)
static_assert(exp(ref::exp_overflow_float) < inf_f && exp(ref::step(ref::exp_overflow_float, 1)) == inf_f);
static_assert(exp(ref::exp_overflow_double) < inf_d && exp(ref::step(ref::exp_overflow_double, 1)) == inf_d);
static_assert(exp(std::numeric_limits<float>::max()) == inf_f && exp(std::numeric_limits<double>::max()) == inf_d);

// underflow threshold: the smallest argument with a nonzero (subnormal) result, and the one below
static_assert(exp(ref::exp_underflow_float) == std::numeric_limits<float>::denorm_min());
static_assert(ref::bits_of(exp(ref::step(ref::exp_underflow_float, -1))) == 0);
static_assert(exp(ref::exp_underflow_double) == std::numeric_limits<double>::denorm_min());
static_assert(ref::bits_of(exp(ref::step(ref::exp_underflow_double, -1))) == 0);
static_assert(ref::bits_of(exp(-std::numeric_limits<double>::max())) == 0);

// gradual underflow: results between the smallest normal and zero are subnormal, not flushed
static_assert(exp(-100.0f) > 0.0f && exp(-100.0f) < std::numeric_limits<float>::min());
static_assert(exp(-740.0) > 0.0 && exp(-740.0) < std::numeric_limits<double>::min());

// subnormal and tiny arguments: e^x rounds to 1
static_assert(exp(std::numeric_limits<float>::denorm_min()) == 1.0f &&
              exp(-std::numeric_limits<double>::denorm_min()) == 1.0);
static_assert(exp(0x1p-25f) == 1.0f && exp(-0x1p-25f) == 1.0f && exp(0x1p-23f) > 1.0f);

// values that a softmax sees
static_assert(exp(1.0) == 0x1.5bf0a8b145769p+1 && exp(-1.0f) == 0x1.78b564p-2f);

}  // namespace
