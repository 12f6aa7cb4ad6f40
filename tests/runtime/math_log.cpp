// ctattn::math::log at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include <type_traits>

#include "ctattn/math/log.hpp"

namespace {

namespace check = ctattn_test::math_check;

struct log_function {
  static constexpr const char* name = "log";
  template <class T>
  static constexpr long long bound = std::is_same_v<T, float> ? 1 : 2;
  template <class T>
  static constexpr const auto& points() {
    if constexpr (std::is_same_v<T, float>) return check::ref::log_float; else return check::ref::log_double;
  }
  template <class T>
  constexpr T operator()(T x) const { return ctattn::math::log(x); }
};

}  // namespace

TEMPLATE_TEST_CASE("log: every reference point within the accuracy bound at run time", "[math][log]", float,
                   double) {
  check::check_reference_points<TestType, log_function>();
}

TEMPLATE_TEST_CASE("log: the same bits in constant evaluation and at run time", "[math][log]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, log_function>();
}
