// ctattn::math::erf at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include "ctattn/math/erf.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct erf_function : check::reference_points<check::ref::erf_float, check::ref::erf_double, 1, 2> {
  static constexpr const char* name = "erf";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::erf(x);
  }
};

}  // namespace

TEMPLATE_TEST_CASE("erf: every reference point within the accuracy bound at run time", "[math][erf]", float, double) {
  check::check_reference_points<TestType, erf_function>();
}

TEMPLATE_TEST_CASE("erf: the same bits in constant evaluation and at run time", "[math][erf]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, erf_function>();
}
