// ctattn::math::sin and cos at run time: every reference point within the accuracy bound, the same bits as in
// constant evaluation (reference points and edges), and the edges.
#include "catch.hpp"

#include "ctattn/math/sin_cos.hpp"

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
struct sin_data;
template <>
struct sin_data<float> {
  static constexpr const auto& points = ref::sin_float;
  static constexpr long long bound = 1;
};
template <>
struct sin_data<double> {
  static constexpr const auto& points = ref::sin_double;
  static constexpr long long bound = 2;
};

constexpr auto sin_call = [](auto x) { return ctattn::math::sin(x); };

}  // namespace

TEMPLATE_TEST_CASE("sin: every reference point within the accuracy bound at run time", "[math][sin]", float, double) {
  for (const auto& p : sin_data<TestType>::points) {
    INFO("sin(" << hex(p.x) << "): got " << hex(sin_call(opaque(p.x))) << ", correctly rounded " << hex(p.y));
    CHECK(ref::ulp_distance(sin_call(opaque(p.x)), p.y) <= sin_data<TestType>::bound);
  }
}

TEMPLATE_TEST_CASE("sin: the same bits in constant evaluation and at run time", "[math][sin]", float, double) {
  static constexpr auto& points = sin_data<TestType>::points;
  static constexpr auto compile_time = ref::apply(points, sin_call);
  static constexpr auto compile_time_edges = ref::apply(edge_points<TestType>, sin_call);
  for (std::size_t i = 0; i < compile_time.size(); ++i) {
    INFO("sin(" << hex(points[i].x) << ")");
    CHECK(ref::bits_of(sin_call(opaque(points[i].x))) == ref::bits_of(compile_time[i]));
  }
  for (std::size_t i = 0; i < compile_time_edges.size(); ++i) {
    INFO("sin(" << hex(edge_points<TestType>[i].x) << ")");
    CHECK(ref::bits_of(sin_call(opaque(edge_points<TestType>[i].x))) == ref::bits_of(compile_time_edges[i]));
  }
}

namespace {

template <class T>
struct cos_data;
template <>
struct cos_data<float> {
  static constexpr const auto& points = ref::cos_float;
  static constexpr long long bound = 1;
};
template <>
struct cos_data<double> {
  static constexpr const auto& points = ref::cos_double;
  static constexpr long long bound = 2;
};

constexpr auto cos_call = [](auto x) { return ctattn::math::cos(x); };

}  // namespace

TEMPLATE_TEST_CASE("cos: every reference point within the accuracy bound at run time", "[math][cos]", float, double) {
  for (const auto& p : cos_data<TestType>::points) {
    INFO("cos(" << hex(p.x) << "): got " << hex(cos_call(opaque(p.x))) << ", correctly rounded " << hex(p.y));
    CHECK(ref::ulp_distance(cos_call(opaque(p.x)), p.y) <= cos_data<TestType>::bound);
  }
}

TEMPLATE_TEST_CASE("cos: the same bits in constant evaluation and at run time", "[math][cos]", float, double) {
  static constexpr auto& points = cos_data<TestType>::points;
  static constexpr auto compile_time = ref::apply(points, cos_call);
  static constexpr auto compile_time_edges = ref::apply(edge_points<TestType>, cos_call);
  for (std::size_t i = 0; i < compile_time.size(); ++i) {
    INFO("cos(" << hex(points[i].x) << ")");
    CHECK(ref::bits_of(cos_call(opaque(points[i].x))) == ref::bits_of(compile_time[i]));
  }
  for (std::size_t i = 0; i < compile_time_edges.size(); ++i) {
    INFO("cos(" << hex(edge_points<TestType>[i].x) << ")");
    CHECK(ref::bits_of(cos_call(opaque(edge_points<TestType>[i].x))) == ref::bits_of(compile_time_edges[i]));
  }
}
