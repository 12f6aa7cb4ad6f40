// The int8 tier at run time: the cases of tests/static/quantized_test.cpp, each float input read through a copy the
// optimizer cannot see through, so quantization and the products run as compiled code.
#include "catch.hpp"
#include "support/quantized_cases.hpp"
#include "support/test_data.hpp"

namespace {
namespace cases = ctattn_test::quantized_cases;
constexpr auto at_run_time = [](const auto& value) { return ctattn_test::opaque(value); };
}  // namespace

TEST_CASE("int8 quantization and products match their definition at run time", "[quantized]") {
  CHECK(cases::quantize_mismatches(at_run_time) == 0);
  CHECK(cases::all_product_mismatches(at_run_time) == 0);
  CHECK(cases::calibration_mismatches(at_run_time) == 0);
  CHECK(cases::calibrated_quantize_mismatches(at_run_time) == 0);
  CHECK(cases::linear_mismatches(at_run_time) == 0);
  CHECK(cases::add_mismatches(at_run_time) == 0);
  CHECK(cases::softmax_mismatches(at_run_time) == 0);
  CHECK(cases::attention_mismatches(at_run_time) == 0);
  CHECK(cases::isqrt_mismatches(at_run_time) == 0);
}

TEST_CASE("int8 activations match their definition at run time", "[quantized]") {
  CHECK(cases::all_activation_mismatches(at_run_time) == 0);
}
