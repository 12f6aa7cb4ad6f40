// Rule: an int8 llama attention's input is quantized as the attention was quantized for (its projections' input)
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_projection, ctattn::quantization_constant<
#include <ctattn/quantized/llama.hpp>

inline constexpr ctattn::quantization q_x{1.0 / 64}, q_other{1.0 / 32};
inline constexpr ctattn::llama_attention_quantizations q{.query = {1.0 / 64},
                                                         .key = {1.0 / 64},
                                                         .value = {1.0 / 64},
                                                         .scores = {1.0 / 16},
                                                         .context = {1.0 / 64},
                                                         .output = {1.0 / 64}};
// Width 8, 2 heads over 1 key/value head, 4 positions.
inline constexpr auto attention_q =
    ctattn::quantize_llama_attention<q_x, q>(ctattn::llama_attention<float, 8, 2, 1, 4>{});
inline const ctattn::qmatrix<3, 8, q_other> other_x{};
inline const ctattn::qmatrix<3, 8, q_x> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return attention_q.forward(other_x)(0, 0);  // <- mistake
#else
  return attention_q.forward(x)(0, 0);
#endif
}
