// ctattn::math::sqrt at run time: every reference point within the accuracy bound, and the same bits
// as in constant evaluation (reference points and edges).
#include "support/math_check.hpp"

#include "ctattn/math/sqrt.hpp"

#include <bit>
#include <limits>

namespace {

namespace check = ctattn_test::math_check;
namespace ref = ctattn_test::math_reference;
using check::opaque;

// A bound of 0 ulp: sqrt is correctly rounded.
struct sqrt_function : check::reference_points<check::ref::sqrt_float, check::ref::sqrt_double, 0, 0> {
  static constexpr const char* name = "sqrt";
  template <class T>
  constexpr T operator()(T x) const {
    return ctattn::math::sqrt(x);
  }
};

}  // namespace

TEMPLATE_TEST_CASE("sqrt: every reference point within the accuracy bound at run time", "[math][sqrt]", float, double) {
  check::check_reference_points<TestType, sqrt_function>();
}

TEMPLATE_TEST_CASE("sqrt: the same bits in constant evaluation and at run time", "[math][sqrt]", float, double) {
  check::check_same_bits_as_constant_evaluation<TestType, sqrt_function>();
}

TEMPLATE_TEST_CASE("sqrt: the hardware instruction used at run time agrees with the integer algorithm", "[math][sqrt]",
                   float, double) {
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
