// Rule: a 16x8 layer's input is quantized as the layer was quantized for
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was quantized for
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_projection, ctattn::quantization_constant<
#include <ctattn/quantized/q16linear.hpp>

inline constexpr ctattn::quantization q_in16{0.0005}, q_other16{0.001}, q_out16{0.002};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{
    {{{0.5f, -0.25f, 0.125f}, {1.0f, 0.0f, -1.0f}}}, {{{0.1f, -0.2f}}}};
inline constexpr auto head16 = ctattn::quantize_linear<q_in16, q_out16, std::int16_t>(head);
inline const ctattn::q16matrix<1, 3, q_other16> other_x{};
inline const ctattn::q16matrix<1, 3, q_in16> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto y = ctattn::project(other_x, head16);  // <- mistake
#else
  const auto y = ctattn::project(x, head16);
#endif
  return y(0, 0);
}
