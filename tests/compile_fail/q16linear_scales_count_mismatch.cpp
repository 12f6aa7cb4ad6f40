// Rule: a 16x8 quantize_linear takes as many weight scales as the layer has: one per output channel, or one
// expected-error: ctattn: the layer takes one weight scale per output channel
// expected-rule: shape_error::weight_scales_must_match_granularity<ctattn::op::quantized_projection, ctattn::count<1>, ctattn::count<2>
#include <ctattn/quantized/q16linear.hpp>

inline constexpr ctattn::quantization q_in16{0.0005}, q_out16{0.002};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{
    {{{0.5f, -0.25f, 0.125f}, {1.0f, 0.0f, -1.0f}}}, {{{0.1f, -0.2f}}}};
inline constexpr ctattn::channel_scales<1> tensor_scale{{1.0 / 127}};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr auto layer = ctattn::quantize_linear<q_in16, q_out16, std::int16_t>(head, tensor_scale);  // <- mistake
#else
  constexpr auto layer = ctattn::quantize_linear<q_in16, q_out16, std::int16_t, ctattn::weight_granularity::per_tensor>(
      head, tensor_scale);
#endif
  return layer.weight[1][0];
}
