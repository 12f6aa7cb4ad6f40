#ifndef CTATTN_FIRMWARE_MODELS_INT8_ATTENTION_HPP
#define CTATTN_FIRMWARE_MODELS_INT8_ATTENTION_HPP

/// \file
/// Int8 attention on the target (docs/quantized.md): the test case of tests/fixtures/quantized/ (torch-drawn Q,
/// K, V of 5 x 8, 7 x 8 and 7 x 6, every quantization calibrated on the float computation), quantized by the
/// compiler, then `ctattn::scaled_dot_product_attention<Scores, Out>(q, k, v)` in integers: int32 sums, the
/// fixed-point requantizations and the int8 softmax. The image compares the run-time output with the compiler's,
/// element by element; the compiler's is the Python reference's (tests/static/quantized_test.cpp).
///
/// | value   | shape       |
/// |---------|-------------|
/// | q       | 5 x 8 int8  |
/// | k       | 7 x 8 int8  |
/// | v       | 7 x 6 int8  |
/// | output  | 5 x 6 int8  |

#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/attention.hpp>
#include <ctattn/quantized/calibrate.hpp>

#include "fixtures/quantized/quantized.hpp"

namespace ctattn_firmware::models {

struct int8_attention {
  static constexpr const char* name = "int8 attention (5 queries, 7 keys, d_k = 8, d_v = 6), integers only";

  static constexpr const auto& fx_q = ctattn_fixtures::quantized::attention::q;
  static constexpr const auto& fx_k = ctattn_fixtures::quantized::attention::k;
  static constexpr const auto& fx_v = ctattn_fixtures::quantized::attention::v;
  static constexpr ctattn::quantization q_q =
      ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(fx_q)));
  static constexpr ctattn::quantization q_k =
      ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(fx_k)));
  static constexpr ctattn::quantization q_v =
      ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(fx_v)));
  static constexpr ctattn::quantization q_scores = ctattn::quantization_for_range(
      ctattn_fixtures::quantized::attention::scores_lo, ctattn_fixtures::quantized::attention::scores_hi);
  static constexpr ctattn::quantization q_out = ctattn::quantization_for_range(
      ctattn_fixtures::quantized::attention::out_lo, ctattn_fixtures::quantized::attention::out_hi);

  struct inputs {
    ctattn::qmatrix<5, 8, q_q> q;
    ctattn::qmatrix<7, 8, q_k> k;
    ctattn::qmatrix<7, 6, q_v> v;
  };

  struct outputs {
    ctattn::qmatrix<5, 6, q_out> context;
  };

  static constexpr inputs example() noexcept {
    return {ctattn::quantize<q_q>(ctattn::from_array(fx_q)), ctattn::quantize<q_k>(ctattn::from_array(fx_k)),
            ctattn::quantize<q_v>(ctattn::from_array(fx_v))};
  }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {ctattn::scaled_dot_product_attention<q_scores, q_out>(in.q, in.k, in.v)};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 context", &outputs::context);
  }
};

// The compiler's result is the Python reference's (the image then holds the target to it).
static_assert([] {
  const auto out = int8_attention::evaluate(int8_attention::example()).context;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 6; ++j) {
      if (out(i, j) != ctattn_fixtures::quantized::attention::output[i][j]) return false;
    }
  }
  return true;
}());

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_INT8_ATTENTION_HPP
