// The int8 tier with one backend's int8 kernel (built once per backend, tests/backend/CMakeLists.txt): every case of
// the int8 case headers marked for the backends (tests/support/case_list.hpp): the kernels against plain loops over
// every length and zero point (tests/support/int8_kernel_cases.hpp), and the int8 operations and layers against the
// Python reference (tests/support/quantized_cases.hpp, int8_decoder_cases.hpp), bit for bit: integer sums give the
// same bits on every backend. The int16 tier (TFLite's 16x8 mode, tests/support/int16_cases.hpp, int16_model_cases.hpp) likewise, where
// CTATTN_TEST_INT16_CASES is 1 (not in the builds that differ from their float backend's only in int8 kernels).
#include "catch.hpp"
#if CTATTN_TEST_INT16_CASES
#include "support/int16_cases.hpp"
#include "support/int16_model_cases.hpp"
#endif
#include "support/int8_decoder_cases.hpp"
#include "support/int8_kernel_cases.hpp"
#include "support/quantized_cases.hpp"
#include "support/test_data.hpp"

#include <cstddef>
#include <cstring>

namespace {
constexpr auto at_run_time = [](const auto& value) { return ctattn_test::opaque(value); };
constexpr auto check_case = [](const char* name, std::size_t mismatches) {
  INFO(name);
  CHECK(mismatches == 0);
};
}  // namespace

TEST_CASE("this backend's int8 kernels give the loops' sums, bit for bit", "[backend][int8]") {
  INFO("ctattn::int8_backend_name is " << ctattn::int8_backend_name);
  CHECK(std::strcmp(ctattn::int8_backend_name, CTATTN_TEST_INT8_BACKEND) == 0);
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::int8_kernel_cases::every_case>(at_run_time,
                                                                                                         check_case);
}

TEST_CASE("every int8 operation gives the Python reference's bits with this backend", "[backend][int8]") {
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::quantized_cases::every_case>(at_run_time,
                                                                                                       check_case);
}

TEST_CASE("int8 decoder layers and int8 decoding steps give the Python reference's bits with this backend",
          "[backend][int8]") {
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::int8_decoder_cases::every_case>(at_run_time,
                                                                                                          check_case);
}

#if CTATTN_TEST_INT16_CASES
TEST_CASE("every int16 (16x8) operation gives TFLite Micro's bits with this backend", "[backend][int16]") {
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::int16_cases::every_case>(at_run_time,
                                                                                                   check_case);
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::int16_cases::layer_cases>(at_run_time,
                                                                                                    check_case);
}

TEST_CASE("16x8 encoder layers and models of int8 and 16x8 layers give the reference's bits with this backend",
          "[backend][int16]") {
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::int16_model_cases::every_case>(at_run_time,
                                                                                                         check_case);
}
#endif
