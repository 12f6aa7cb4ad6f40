#ifndef CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_INT8_HPP
#define CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_INT8_HPP

/// \file
/// The reference text's worked example in int8 (docs/quantized.md): the float model of worked_example.hpp (6
/// tokens x 16, one head, W_Q and W_K 24 x 16, W_V 28 x 16, PyTorch's out x in layout) quantized by the compiler,
/// then computed in integers only: the three projections as TFLite's per-channel fully-connected layer
/// (`ctattn::project`) and `ctattn::scaled_dot_product_attention<Scores, Out>(q, k, v)`.
///
/// Every quantization is chosen at compile time from the float computation, as a converter calibrates a model
/// on its data (here the one sentence is the calibration set):
///
/// | value     | shape        | quantization                                                              |
/// |-----------|--------------|---------------------------------------------------------------------------|
/// | `x`       | seq x d_model| from the observed range of the float input                                |
/// | W_Q, W_K  | d_k x d_model| int8, one symmetric scale per output channel (`weight_scales`)            |
/// | W_V       | d_v x d_model| int8, one symmetric scale per output channel                              |
/// | Q, K      | seq x d_k    | from the range of the float projections x W_Q^T, x W_K^T                  |
/// | V         | seq x d_v    | from the range of the float projection x W_V^T                            |
/// | scores    | seq x seq    | from the range of the float Q K^T / sqrt(d_k)                             |
/// | `context` | seq x d_v    | from the range of the float attention output                              |
///
/// The image (images/worked_example_int8.cpp) reads the int8 input and weights through the harness's opaque
/// pointer, computes on the target and compares each output element with the compiler's result. Below, the compiler
/// also holds the dequantized context to the float worked example (`context_error_bound_steps`).
///
/// Example:
/// \code
///   constexpr auto in = ctattn_firmware::models::worked_example_int8::example();
///   constexpr auto out = ctattn_firmware::models::worked_example_int8::evaluate(in);   // out.context: 6 x 28 int8
/// \endcode

#include <cstddef>

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/math/sqrt.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/transpose.hpp>
#include <ctattn/quantized/attention.hpp>
#include <ctattn/quantized/calibrate.hpp>
#include <ctattn/quantized/linear.hpp>

#include "worked_example.hpp"

namespace ctattn_firmware::models {

struct worked_example_int8 {
  static constexpr const char* name = "worked example in int8 (6 x 16, d_k = 24, d_v = 28), integers only";

  using seq = worked_dims::seq;
  using d_model = worked_dims::d_model;
  using d_k = worked_dims::d_k;
  using d_v = worked_dims::d_v;

  /// The float model the int8 one is quantized from, and its results, all computed by the compiler.
  static constexpr worked_example::input float_x = worked_example::example_input();
  static constexpr worked_example::parameters float_head = worked_example::example_parameters();
  static constexpr auto float_q = ctattn::project(float_x, float_head.query);
  static constexpr auto float_k = ctattn::project(float_x, float_head.key);
  static constexpr auto float_v = ctattn::project(float_x, float_head.value);
  static constexpr auto float_context = ctattn::self_attention(float_x, float_head);

  /// The range of Q K^T / sqrt(d_k): the float scores' range, both ends divided by sqrt(d_k) in double.
  static constexpr ctattn::value_range scaled_score_range = [] {
    const ctattn::value_range r = ctattn::observed_range(float_q * ctattn::transpose(float_k));
    const double root = ctattn::math::sqrt(static_cast<double>(decltype(float_q)::cols));
    return ctattn::value_range{r.lo / root, r.hi / root};
  }();

  static constexpr ctattn::quantization q_x = ctattn::quantization_for_range(ctattn::observed_range(float_x));
  static constexpr ctattn::quantization q_query = ctattn::quantization_for_range(ctattn::observed_range(float_q));
  static constexpr ctattn::quantization q_key = ctattn::quantization_for_range(ctattn::observed_range(float_k));
  static constexpr ctattn::quantization q_value = ctattn::quantization_for_range(ctattn::observed_range(float_v));
  static constexpr ctattn::quantization q_scores = ctattn::quantization_for_range(scaled_score_range);
  static constexpr ctattn::quantization q_context =
      ctattn::quantization_for_range(ctattn::observed_range(float_context));

  // The int8 projections, quantized by the compiler from the float head.
  using query_layer = decltype(ctattn::quantize_linear<q_x, q_query>(float_head.query));
  using key_layer = decltype(ctattn::quantize_linear<q_x, q_key>(float_head.key));
  using value_layer = decltype(ctattn::quantize_linear<q_x, q_value>(float_head.value));

  // Rationale: the weights are inputs of the check, not constants of evaluate(): the image reads them, like x,
  // through a pointer the compiler cannot see through, so no weight is folded into an instruction and the
  // figures are those of a model whose weights sit in flash.
  struct inputs {
    ctattn::qmatrix<seq{6}, d_model{16}, q_x> x;
    query_layer query;
    key_layer key;
    value_layer value;
  };

  struct outputs {
    ctattn::qmatrix<seq{6}, d_v{28}, q_context> context;
  };

  static constexpr inputs example() noexcept {
    return {ctattn::quantize<q_x>(float_x), ctattn::quantize_linear<q_x, q_query>(float_head.query),
            ctattn::quantize_linear<q_x, q_key>(float_head.key),
            ctattn::quantize_linear<q_x, q_value>(float_head.value)};
  }

  static constexpr outputs evaluate(const inputs& in) noexcept {
    const auto q = ctattn::project(in.x, in.query);
    const auto k = ctattn::project(in.x, in.key);
    const auto v = ctattn::project(in.x, in.value);
    return {ctattn::scaled_dot_product_attention<q_scores, q_context>(q, k, v)};
  }

  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 context", &outputs::context);
  }

  /// The cost of quantizing: every element of the dequantized int8 context is within this many steps of the
  /// context's scale (q_context.scale(), 0.0403) of the float worked example's context. Measured by the compiler
  /// (`largest_context_error`): 3.32 steps, 0.134, where the context's largest magnitude is 5.23; 124 of the 168
  /// elements are within one step. (The scores Q K^T / sqrt(d_k) span [-28.9, 29.7]: one step of their
  /// quantization is 0.23, and the softmax takes their errors into its exponent.)
  static constexpr double context_error_bound_steps = 4.0;

  /// The largest difference, over the 6 x 28 elements, between the dequantized int8 context and the float
  /// context (ctattn's float self_attention, which the float model holds to PyTorch's), in steps of q_context.
  [[nodiscard]] static constexpr double largest_context_error() noexcept {
    const auto out = evaluate(example()).context;
    double largest = 0.0;
    for (std::size_t i = 0; i < decltype(out)::rows; ++i) {
      for (std::size_t c = 0; c < decltype(out)::cols; ++c) {
        const double difference = out.real(i, c) - static_cast<double>(float_context(i, c));
        const double magnitude = difference < 0 ? -difference : difference;
        largest = magnitude > largest ? magnitude : largest;
      }
    }
    return largest / q_context.scale();
  }
};

// Checked by the compiler: the int8 worked example is right, not only self-consistent. Its dequantized context is
// within `context_error_bound_steps` output steps of the float worked example's on every element
// (tests/static/worked_example_int8_test.cpp holds it on the host compilers too, against PyTorch's contexts as well).
static_assert(worked_example_int8::largest_context_error() <= worked_example_int8::context_error_bound_steps,
              "the int8 worked example must stay within its stated bound of the float worked example");

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_INT8_HPP
