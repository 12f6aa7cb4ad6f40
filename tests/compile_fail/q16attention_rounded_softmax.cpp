// Rule: 16x8 attention's softmax is TFLite's int16 SOFTMAX; ctattn's rounded int8 softmax has no int16 form
// expected-error: ctattn: 16x8 attention's softmax is TFLite's int16 SOFTMAX, and softmax_method::rounded
// expected-rule: shape_error::int16_softmax_is_tflites<ctattn::op::int16_multi_head_attention, false>
#include <ctattn/quantized/q16attention.hpp>

inline constexpr ctattn::quantization q_x16{0.0005}, q_p16{0.0004}, q_scores16{0.0003};
inline constexpr ctattn::linear<float, 4, 4, ctattn::out_by_in, true> projection{};
inline constexpr auto p16 = ctattn::quantize_linear<q_x16, q_p16, std::int16_t>(projection);
inline constexpr auto weights16 = ctattn::make_qmulti_head_attention_weights<2>(
    p16, p16, p16, ctattn::quantize_linear<q_p16, q_p16, std::int16_t>(projection));
inline const ctattn::q16matrix<3, 4, q_x16> x16{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y =
      ctattn::multi_head_attention<q_scores16, ctattn::softmax_method::rounded>(x16, weights16);  // <- mistake
#else
  const auto y = ctattn::multi_head_attention<q_scores16, ctattn::softmax_method::tflite>(x16, weights16);
#endif
  return y(0, 0);
}
