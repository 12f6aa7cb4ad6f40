// The int16 tier (TFLite's 16x8 mode) at run time: every case of tests/support/int16_cases.hpp and
// int16_model_cases.hpp (the lists tests/static asserts at compile time), each input read through a copy the
// optimizer cannot see through.
#include "catch.hpp"
#include "support/int16_cases.hpp"
#include "support/int16_model_cases.hpp"
#include "support/test_data.hpp"

#include <cstddef>

namespace {
constexpr auto at_run_time = [](const auto& value) { return ctattn_test::opaque(value); };
constexpr auto check_case = [](const char* name, std::size_t mismatches) {
  INFO(name);
  CHECK(mismatches == 0);
};
}  // namespace

TEST_CASE("int16 quantization, conversions, products, ADD, MUL and softmax match TFLite Micro's at run time",
          "[quantized][int16]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, ctattn_test::int16_cases::every_case>(at_run_time, check_case);
}

TEST_CASE("int16 LayerNorm, activations and 16x8 attention match their references at run time", "[quantized][int16]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, ctattn_test::int16_cases::layer_cases>(at_run_time, check_case);
}

TEST_CASE("16x8 encoder layers and models of int8 and 16x8 layers match the reference at run time",
          "[quantized][int16]") {
  ctattn_test::for_each_case<ctattn_test::at_run_time, ctattn_test::int16_model_cases::every_case>(at_run_time,
                                                                                                   check_case);
}
