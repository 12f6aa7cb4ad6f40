// The fixed-point arithmetic of int8 inference at run time: the same cases as tests/static/fixed_point_test.cpp,
// each operand read through a pointer the optimizer cannot see through, so the run-time code computes them.
#include "catch.hpp"
#include "support/fixed_point_cases.hpp"
#include "support/test_data.hpp"

namespace {
namespace cases = ctattn_test::fixed_point_cases;
constexpr auto at_run_time = [](auto value) { return ctattn_test::opaque(value); };
}  // namespace

TEST_CASE("the fixed-point arithmetic of int8 inference matches its definition at run time", "[fixed_point]") {
  CHECK(cases::multiplier_mismatches(at_run_time) == 0);
  CHECK(cases::high_mul_mismatches(at_run_time) == 0);
  CHECK(cases::divide_mismatches(at_run_time) == 0);
  CHECK(cases::requantize_mismatches(at_run_time) == 0);
  CHECK(cases::exp_mismatches(at_run_time) == 0);
  CHECK(cases::inverse_mismatches(at_run_time) == 0);
  CHECK(cases::reciprocal_mismatches(at_run_time) == 0);
  CHECK(cases::requantize64_mismatches(at_run_time) == 0);
}
