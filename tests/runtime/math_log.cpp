// ctattn::math::log at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include "ctattn/math/log.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct log_function : check::reference_points<check::ref::log_float, check::ref::log_double, 1, 2> {
  static constexpr const char* name = "log";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::log(x);
  }
};

}  // namespace

TEMPLATE_TEST_CASE("log: every reference point within the accuracy bound at run time", "[math][log]", float, double) {
  check::check_reference_points<TestType, log_function>();
}

TEMPLATE_TEST_CASE("log: the same bits in constant evaluation and at run time", "[math][log]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, log_function>();
}
