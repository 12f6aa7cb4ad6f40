// The run-time checks shared by every constexpr math function: each reference point within the function's ulp
// bound, and the same bits at run time as in constant evaluation (reference points and edge arguments).
#ifndef CTATTN_TESTS_SUPPORT_MATH_CHECK_HPP
#define CTATTN_TESTS_SUPPORT_MATH_CHECK_HPP

#include "catch.hpp"
#include "fixtures/math/math_reference.hpp"

#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

namespace ctattn_test::math_check {

namespace ref = ctattn_test::math_reference;

// Hides a value from the optimizer, so that the call really runs at run time.
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

/// The part of a checked function that is the same for all of them: its reference points and ulp bound per type.
/// A checked function derives from it and adds `name` and a call operator:
///   struct erf_function : reference_points<ref::erf_float, ref::erf_double, 1, 2> { ... };
template <const auto& FloatPoints, const auto& DoublePoints, long long FloatBound, long long DoubleBound>
struct reference_points {
  template <class T>
  static constexpr long long bound = std::is_same_v<T, float> ? FloatBound : DoubleBound;
  template <class T>
  static constexpr const auto& points() {
    if constexpr (std::is_same_v<T, float>) {
      return FloatPoints;
    } else {
      return DoublePoints;
    }
  }
};

/// Every reference point of `Function` (a type with `name`, `points<T>()`, `bound<T>` and a call operator) is
/// within `bound<T>` ulp of the correctly rounded value at run time.
template <class T, class Function>
void check_reference_points() {
  constexpr Function call{};
  for (const auto& p : Function::template points<T>()) {
    INFO(Function::name << "(" << hex(p.x) << "): got " << hex(call(opaque(p.x))) << ", correctly rounded "
                        << hex(p.y));
    CHECK(ref::ulp_distance(call(opaque(p.x)), p.y) <= Function::template bound<T>);
  }
}

/// `Function` gives the same bits at run time as in constant evaluation, at every reference point and edge.
template <class T, class Function>
void check_same_bits_as_constant_evaluation() {
  static constexpr Function call{};
  static constexpr auto& points = Function::template points<T>();
  static constexpr auto compile_time = ref::apply(points, call);
  static constexpr auto compile_time_edges = ref::apply(edge_points<T>, call);
  for (std::size_t i = 0; i < compile_time.size(); ++i) {
    INFO(Function::name << "(" << hex(points[i].x) << ")");
    CHECK(ref::bits_of(call(opaque(points[i].x))) == ref::bits_of(compile_time[i]));
  }
  for (std::size_t i = 0; i < compile_time_edges.size(); ++i) {
    INFO(Function::name << "(" << hex(edge_points<T>[i].x) << ")");
    CHECK(ref::bits_of(call(opaque(edge_points<T>[i].x))) == ref::bits_of(compile_time_edges[i]));
  }
}

}  // namespace ctattn_test::math_check

#endif  // CTATTN_TESTS_SUPPORT_MATH_CHECK_HPP
