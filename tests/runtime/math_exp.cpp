// ctattn::math::exp at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include <type_traits>

#include "ctattn/math/exp.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct exp_function {
  static constexpr const char* name = "exp";
  template <class T>
  static constexpr long long bound = std::is_same_v<T, float> ? 1 : 2;
  template <class T>
  static constexpr const auto& points() {
    if constexpr (std::is_same_v<T, float>) return check::ref::exp_float; else return check::ref::exp_double;
  }
  template <class T>
  constexpr T operator()(T x) const { return ctattn::math::exp(x); }
};

}  // namespace

TEMPLATE_TEST_CASE("exp: every reference point within the accuracy bound at run time", "[math][exp]", float,
                   double) {
  check::check_reference_points<TestType, exp_function>();
}

TEMPLATE_TEST_CASE("exp: the same bits in constant evaluation and at run time", "[math][exp]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, exp_function>();
}
