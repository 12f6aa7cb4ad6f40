// Rule: quantize_linear takes as many weight scales as the layer has: one per output channel, or one per tensor
// expected-error: ctattn: the layer takes one weight scale per output channel
// expected-rule: shape_error::weight_scales_must_match_granularity<ctattn::op::quantized_projection, ctattn::count<1>, ctattn::count<2>
#include <ctattn/quantized/linear.hpp>

inline constexpr ctattn::quantization q_in{0.02, -5}, q_out{0.05, 3};
inline constexpr ctattn::linear<float, 3, 2, ctattn::out_by_in, true> head{
    {{{0.5f, -0.25f, 0.125f}, {1.0f, 0.0f, -1.0f}}}, {{{0.1f, -0.2f}}}};
inline constexpr ctattn::channel_scales<1> tensor_scale{{1.0 / 127}};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr auto layer = ctattn::quantize_linear<q_in, q_out>(head, tensor_scale);  // <- mistake
#else
  constexpr auto layer =
      ctattn::quantize_linear<q_in, q_out, ctattn::weight_format::int8, ctattn::weight_granularity::per_tensor>(
          head, tensor_scale);
#endif
  return layer.weight_value(1, 0);
}
