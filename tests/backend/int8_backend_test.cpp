// The int8 tier with one backend's int8 kernel (built once per backend, tests/backend/CMakeLists.txt): the kernel
// against a plain loop over every length and zero point (tests/support/int8_kernel_cases.hpp), and every int8
// operation against the Python reference (tests/support/quantized_cases.hpp), bit for bit: integer sums give the
// same bits on every backend.
#include "catch.hpp"
#include "support/int8_decoder_cases.hpp"
#include "support/int8_kernel_cases.hpp"
#include "support/quantized_cases.hpp"
#include "support/test_data.hpp"

#include <cstring>

namespace {
namespace cases = ctattn_test::quantized_cases;
constexpr auto at_run_time = [](const auto& value) { return ctattn_test::opaque(value); };
}  // namespace

TEST_CASE("this backend's int8 kernel gives the loop's sums, bit for bit", "[backend][int8]") {
  INFO("ctattn::int8_backend_name is " << ctattn::int8_backend_name);
  CHECK(std::strcmp(ctattn::int8_backend_name, CTATTN_TEST_INT8_BACKEND) == 0);
  CHECK(ctattn_test::int8_kernel_cases::all_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::all_fully_connected_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::large_fully_connected_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::large_transposed_product_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::layer_norm_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::arithmetic_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::add_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::lookup_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::softmax_mismatches(at_run_time) == 0);
  CHECK(ctattn_test::int8_kernel_cases::long_softmax_mismatches(at_run_time) == 0);
}

TEST_CASE("every int8 operation gives the Python reference's bits with this backend", "[backend][int8]") {
  CHECK(cases::all_product_mismatches(at_run_time) == 0);
  CHECK(cases::linear_mismatches(at_run_time) == 0);
  CHECK(cases::patch_embedding_mismatches(at_run_time) == 0);
  CHECK(cases::class_token_and_mean_mismatches(at_run_time) == 0);
  CHECK(cases::hadamard_mismatches(at_run_time) == 0);
  CHECK(cases::softmax_mismatches(at_run_time) == 0);
  CHECK(cases::attention_mismatches(at_run_time) == 0);
  CHECK(cases::large_attention_mismatches(at_run_time) == 0);
  CHECK(cases::masked_attention_mismatches(at_run_time) == 0);
  CHECK(cases::blocked_attention_mismatches(at_run_time) == 0);
  CHECK(cases::blocked_multi_head_mismatches(at_run_time) == 0);
  CHECK(cases::blocked_feed_forward_mismatches(at_run_time) == 0);
  CHECK(cases::multi_head_mismatches(at_run_time) == 0);
  CHECK(cases::cross_attention_mismatches(at_run_time) == 0);
  CHECK(cases::layer_norm_mismatches(at_run_time) == 0);
  CHECK(cases::rms_norm_mismatches(at_run_time) == 0);
  CHECK(cases::all_activation_mismatches(at_run_time) == 0);
}

TEST_CASE("int8 decoder layers (post-norm and pre-norm) and int8 decoding steps give the Python reference's bits with this backend", "[backend][int8]") {
  namespace ref = ctattn_test::int8_decoder_cases;
  CHECK(ref::recorded_range_mismatches<ref::post_norm>(at_run_time) == 0);
  CHECK(ref::recorded_range_mismatches<ref::pre_norm>(at_run_time) == 0);
  CHECK(ref::recorded_range_mismatches<ref::pre_norm_unmasked>(at_run_time) == 0);
  CHECK(ref::decoder_mismatches<ref::post_norm>(at_run_time) == 0);
  CHECK(ref::decoder_mismatches<ref::pre_norm>(at_run_time) == 0);
  CHECK(ref::decoder_mismatches<ref::pre_norm_unmasked>(at_run_time) == 0);
  CHECK(ref::decoder_step_mismatches<ref::post_norm>(at_run_time) == 0);
  CHECK(ref::decoder_step_mismatches<ref::pre_norm>(at_run_time) == 0);
  CHECK(ref::encoder_step_mismatches<false>(at_run_time) == 0);
  CHECK(ref::encoder_step_mismatches<true>(at_run_time) == 0);
}
