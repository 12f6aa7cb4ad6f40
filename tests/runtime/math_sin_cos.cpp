// ctattn::math::sin and cos at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include <type_traits>

#include "ctattn/math/sin_cos.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct sin_function {
  static constexpr const char* name = "sin";
  template <class T>
  static constexpr long long bound = std::is_same_v<T, float> ? 1 : 2;
  template <class T>
  static constexpr const auto& points() {
    if constexpr (std::is_same_v<T, float>) return check::ref::sin_float; else return check::ref::sin_double;
  }
  template <class T>
  constexpr T operator()(T x) const { return ctattn::math::sin(x); }
};

struct cos_function {
  static constexpr const char* name = "cos";
  template <class T>
  static constexpr long long bound = std::is_same_v<T, float> ? 1 : 2;
  template <class T>
  static constexpr const auto& points() {
    if constexpr (std::is_same_v<T, float>) return check::ref::cos_float; else return check::ref::cos_double;
  }
  template <class T>
  constexpr T operator()(T x) const { return ctattn::math::cos(x); }
};

}  // namespace

TEMPLATE_TEST_CASE("sin: every reference point within the accuracy bound at run time", "[math][sin]", float,
                   double) {
  check::check_reference_points<TestType, sin_function>();
}

TEMPLATE_TEST_CASE("sin: the same bits in constant evaluation and at run time", "[math][sin]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, sin_function>();
}

TEMPLATE_TEST_CASE("cos: every reference point within the accuracy bound at run time", "[math][cos]", float,
                   double) {
  check::check_reference_points<TestType, cos_function>();
}

TEMPLATE_TEST_CASE("cos: the same bits in constant evaluation and at run time", "[math][cos]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, cos_function>();
}
