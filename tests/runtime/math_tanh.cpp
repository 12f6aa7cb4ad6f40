// ctattn::math::tanh at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include "ctattn/math/tanh.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct tanh_function : check::reference_points<check::ref::tanh_float, check::ref::tanh_double, 1, 2> {
  static constexpr const char* name = "tanh";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::tanh(x);
  }
};

}  // namespace

TEMPLATE_TEST_CASE("tanh: every reference point within the accuracy bound at run time", "[math][tanh]", float, double) {
  check::check_reference_points<TestType, tanh_function>();
}

TEMPLATE_TEST_CASE("tanh: the same bits in constant evaluation and at run time", "[math][tanh]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, tanh_function>();
}
