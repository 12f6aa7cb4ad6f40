// The int8 tier at run time: the cases of tests/static/quantized_test.cpp, each float input read through a copy the
// optimizer cannot see through, so quantization and the products run as compiled code.
#include "catch.hpp"
#include "support/int8_decoder_cases.hpp"
#include "support/int8_kernel_cases.hpp"
#include "support/quantized_cases.hpp"
#include "support/test_data.hpp"

namespace {
namespace cases = ctattn_test::quantized_cases;
constexpr auto at_run_time = [](const auto& value) { return ctattn_test::opaque(value); };
}  // namespace

TEST_CASE("the int8 kernel gives the loop's sums with this build's int8 backend", "[quantized][int8_kernel]") {
  INFO("ctattn::int8_backend_name is " << ctattn::int8_backend_name);
  CHECK(ctattn_test::int8_kernel_cases::all_mismatches(at_run_time) == 0);
}

TEST_CASE("the int8 fully-connected kernel gives TFLite's outputs with this build's int8 backend",
          "[quantized][int8_kernel]") {
  INFO("ctattn::int8_backend_name is " << ctattn::int8_backend_name);
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

TEST_CASE("int8 quantization and products match their definition at run time", "[quantized]") {
  CHECK(cases::quantize_mismatches(at_run_time) == 0);
  CHECK(cases::all_product_mismatches(at_run_time) == 0);
  CHECK(cases::calibration_mismatches(at_run_time) == 0);
  CHECK(cases::calibrated_quantize_mismatches(at_run_time) == 0);
  CHECK(cases::linear_mismatches(at_run_time) == 0);
  CHECK(cases::patch_embedding_mismatches(at_run_time) == 0);
  CHECK(cases::class_token_and_mean_mismatches(at_run_time) == 0);
  CHECK(cases::tflite_float32_mismatches(at_run_time) == 0);
  CHECK(cases::add_mismatches(at_run_time) == 0);
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
  CHECK(cases::isqrt_mismatches(at_run_time) == 0);
}

TEST_CASE("int8 activations and LayerNorm match their definition at run time", "[quantized]") {
  CHECK(cases::rounding_shift_mismatches(at_run_time) == 0);
  CHECK(cases::all_activation_mismatches(at_run_time) == 0);
  CHECK(cases::layer_norm_mismatches(at_run_time) == 0);
  CHECK(cases::plain_layer_norm_mismatches(at_run_time) == 0);
  CHECK(cases::all_extreme_layer_norm_mismatches(at_run_time) == 0);
  CHECK(cases::rms_norm_mismatches(at_run_time) == 0);
  CHECK(cases::wide_rms_norm_mismatches(at_run_time) == 0);
  // The widest rows, the layer quantized at run time too.
  static const auto wide_norm = cases::wide_norm_of(at_run_time);
  CHECK(cases::wide_constant_mismatches(wide_norm) == 0);
  CHECK(cases::wide_row_mismatches(wide_norm, 0, at_run_time) == 0);
  CHECK(cases::wide_row_mismatches(wide_norm, 1, at_run_time) == 0);
  CHECK(cases::wide_row_mismatches(wide_norm, 2, at_run_time) == 0);
}

TEST_CASE("int8 decoder layers (post-norm and pre-norm) and int8 decoding steps give the Python reference's bits at run time", "[quantized]") {
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
