// ctattn::math::sqrt at run time: every reference point within the accuracy bound, the same bits as in
// constant evaluation (reference points and edges), and the edges.
#include "catch.hpp"

#include "ctattn/math/sqrt.hpp"

#include <bit>
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
struct sqrt_data;
template <>
struct sqrt_data<float> {
  static constexpr const auto& points = ref::sqrt_float;
  static constexpr long long bound = 0;  // correctly rounded
};
template <>
struct sqrt_data<double> {
  static constexpr const auto& points = ref::sqrt_double;
  static constexpr long long bound = 0;  // correctly rounded
};

constexpr auto sqrt_call = [](auto x) { return ctattn::math::sqrt(x); };

}  // namespace

TEMPLATE_TEST_CASE("sqrt: every reference point within the accuracy bound at run time", "[math][sqrt]", float, double) {
  for (const auto& p : sqrt_data<TestType>::points) {
    INFO("sqrt(" << hex(p.x) << "): got " << hex(sqrt_call(opaque(p.x))) << ", correctly rounded " << hex(p.y));
    CHECK(ref::ulp_distance(sqrt_call(opaque(p.x)), p.y) <= sqrt_data<TestType>::bound);
  }
}

TEMPLATE_TEST_CASE("sqrt: the same bits in constant evaluation and at run time", "[math][sqrt]", float, double) {
  static constexpr auto& points = sqrt_data<TestType>::points;
  static constexpr auto compile_time = ref::apply(points, sqrt_call);
  static constexpr auto compile_time_edges = ref::apply(edge_points<TestType>, sqrt_call);
  for (std::size_t i = 0; i < compile_time.size(); ++i) {
    INFO("sqrt(" << hex(points[i].x) << ")");
    CHECK(ref::bits_of(sqrt_call(opaque(points[i].x))) == ref::bits_of(compile_time[i]));
  }
  for (std::size_t i = 0; i < compile_time_edges.size(); ++i) {
    INFO("sqrt(" << hex(edge_points<TestType>[i].x) << ")");
    CHECK(ref::bits_of(sqrt_call(opaque(edge_points<TestType>[i].x))) == ref::bits_of(compile_time_edges[i]));
  }
}

TEMPLATE_TEST_CASE("sqrt: the hardware instruction used at run time agrees with the integer algorithm",
                   "[math][sqrt]", float, double) {
  // Rationale: at run time sqrt takes the instruction; this sweeps the bit patterns of all positive finite
  // values with a fixed stride (and every subnormal power of two) through both paths at run time.
  using bits = ref::bits_t<TestType>;
  constexpr bits top = ref::bits_of(std::numeric_limits<TestType>::max());
  constexpr bits stride = top / 1000003;
  long long mismatches = 0;
  for (bits b = 1; b <= top - stride; b += stride) {
    const TestType x = opaque(std::bit_cast<TestType>(b));
    if (ref::bits_of(ctattn::math::sqrt(x)) != ref::bits_of(ctattn::math::detail::sqrt_exact(x))) ++mismatches;
  }
  for (TestType x = std::numeric_limits<TestType>::denorm_min(); x < 1; x *= 2) {
    if (ref::bits_of(ctattn::math::sqrt(opaque(x))) != ref::bits_of(ctattn::math::detail::sqrt_exact(opaque(x))))
      ++mismatches;
  }
  CHECK(mismatches == 0);
}
