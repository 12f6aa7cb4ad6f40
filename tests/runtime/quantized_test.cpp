// The int8 tier at run time: every case of the int8 case headers marked for it (tests/support/case_list.hpp: the
// same lists tests/static asserts at compile time), each float input read through a copy the optimizer cannot see
// through, so quantization and the products run as compiled code.
#include "catch.hpp"
#include "support/int8_decoder_cases.hpp"
#include "support/int8_kernel_cases.hpp"
#include "support/quantized_cases.hpp"
#include "support/test_data.hpp"

#include <cstddef>

namespace {
constexpr auto at_run_time = [](const auto& value) { return ctattn_test::opaque(value); };
constexpr auto check_case = [](const char* name, std::size_t mismatches) {
  INFO(name);
  CHECK(mismatches == 0);
};
}  // namespace

TEST_CASE("the int8 kernels give the loops' sums and TFLite's outputs with this build's int8 backend",
          "[quantized][int8_kernel]") {
  INFO("ctattn::int8_backend_name is " << ctattn::int8_backend_name);
  ctattn_test::for_each_case<ctattn_test::at_run_time, ctattn_test::int8_kernel_cases::every_case>(at_run_time,
                                                                                                   check_case);
}

TEST_CASE("int8 quantization, products, attention, activations and norms match their definition at run time",
          "[quantized]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, ctattn_test::quantized_cases::every_case>(at_run_time,
                                                                                                 check_case);
}

TEST_CASE("int8 decoder layers and int8 decoding steps give the Python reference's bits at run time", "[quantized]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, ctattn_test::int8_decoder_cases::every_case>(at_run_time,
                                                                                                    check_case);
}
