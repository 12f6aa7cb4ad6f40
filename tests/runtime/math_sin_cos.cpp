// ctattn::math::sin and cos at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include "ctattn/math/sin_cos.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct sin_function : check::reference_points<check::ref::sin_float, check::ref::sin_double, 1, 2> {
  static constexpr const char* name = "sin";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::sin(x);
  }
};

struct cos_function : check::reference_points<check::ref::cos_float, check::ref::cos_double, 1, 2> {
  static constexpr const char* name = "cos";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::cos(x);
  }
};

}  // namespace

TEMPLATE_TEST_CASE("sin: every reference point within the accuracy bound at run time", "[math][sin]", float, double) {
  check::check_reference_points<TestType, sin_function>();
}

TEMPLATE_TEST_CASE("sin: the same bits in constant evaluation and at run time", "[math][sin]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, sin_function>();
}

TEMPLATE_TEST_CASE("cos: every reference point within the accuracy bound at run time", "[math][cos]", float, double) {
  check::check_reference_points<TestType, cos_function>();
}

TEMPLATE_TEST_CASE("cos: the same bits in constant evaluation and at run time", "[math][cos]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, cos_function>();
}
