// ctattn::math::exp at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include "ctattn/math/exp.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct exp_function : check::reference_points<check::ref::exp_float, check::ref::exp_double, 1, 2> {
  static constexpr const char* name = "exp";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::exp(x);
  }
};

}  // namespace

TEMPLATE_TEST_CASE("exp: every reference point within the accuracy bound at run time", "[math][exp]", float, double) {
  check::check_reference_points<TestType, exp_function>();
}

TEMPLATE_TEST_CASE("exp: the same bits in constant evaluation and at run time", "[math][exp]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, exp_function>();
}
