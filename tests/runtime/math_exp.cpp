// ctattn::math::exp at run time: every reference point within the accuracy bound, the same bits as in
// constant evaluation (reference points and edges), and the edges.
#include "catch.hpp"

#include "ctattn/math/exp.hpp"

#include <cstddef>
#include <limits>
#include <sstream>
#include <string>

#include "fixtures/math/math_reference.hpp"

namespace {

namespace ref = ctattn_test::math_reference;

// Hides a value from the optimizer, so that the call below really runs at run time.
template <class T>
T opaque(T x) {
  volatile T v = x;
  return v;
}

template <class T>
std::string hex(T x) {
  std::ostringstream out;
  out << std::hexfloat << x;
  return out.str();
}

// Arguments whose results are special: zeros, subnormals, the extremes, infinities, NaNs of both signs.
template <class T>
constexpr ref::point<T> edge_points[] = {
    {T(0), T(0)},
    {-T(0), T(0)},
    {std::numeric_limits<T>::denorm_min(), T(0)},
    {-std::numeric_limits<T>::denorm_min(), T(0)},
    {std::numeric_limits<T>::min(), T(0)},
    {-std::numeric_limits<T>::min(), T(0)},
    {std::numeric_limits<T>::max(), T(0)},
    {-std::numeric_limits<T>::max(), T(0)},
    {std::numeric_limits<T>::infinity(), T(0)},
    {-std::numeric_limits<T>::infinity(), T(0)},
    {std::numeric_limits<T>::quiet_NaN(), T(0)},
    {-std::numeric_limits<T>::quiet_NaN(), T(0)},
    {T(1), T(0)},
    {T(-1), T(0)},
};

}  // namespace

namespace {

template <class T>
struct exp_data;
template <>
struct exp_data<float> {
  static constexpr const auto& points = ref::exp_float;
  static constexpr long long bound = 1;
};
template <>
struct exp_data<double> {
  static constexpr const auto& points = ref::exp_double;
  static constexpr long long bound = 2;
};

constexpr auto exp_call = [](auto x) { return ctattn::math::exp(x); };

}  // namespace

TEMPLATE_TEST_CASE("exp: every reference point within the accuracy bound at run time", "[math][exp]", float, double) {
  for (const auto& p : exp_data<TestType>::points) {
    INFO("exp(" << hex(p.x) << "): got " << hex(exp_call(opaque(p.x))) << ", correctly rounded " << hex(p.y));
    CHECK(ref::ulp_distance(exp_call(opaque(p.x)), p.y) <= exp_data<TestType>::bound);
  }
}

TEMPLATE_TEST_CASE("exp: the same bits in constant evaluation and at run time", "[math][exp]", float, double) {
  static constexpr auto& points = exp_data<TestType>::points;
  static constexpr auto compile_time = ref::apply(points, exp_call);
  static constexpr auto compile_time_edges = ref::apply(edge_points<TestType>, exp_call);
  for (std::size_t i = 0; i < compile_time.size(); ++i) {
    INFO("exp(" << hex(points[i].x) << ")");
    CHECK(ref::bits_of(exp_call(opaque(points[i].x))) == ref::bits_of(compile_time[i]));
  }
  for (std::size_t i = 0; i < compile_time_edges.size(); ++i) {
    INFO("exp(" << hex(edge_points<TestType>[i].x) << ")");
    CHECK(ref::bits_of(exp_call(opaque(edge_points<TestType>[i].x))) == ref::bits_of(compile_time_edges[i]));
  }
}
