// Rule: a per-tensor int8 layer has one weight scale, a per-channel one a scale per output channel
// expected-error: ctattn: the layer takes one weight scale per output channel
// expected-rule: shape_error::weight_scales_must_match_granularity<ctattn::op::quantized_projection, ctattn::count<2>, ctattn::count<1>
#include <ctattn/quantized/linear.hpp>

inline constexpr ctattn::quantization q_in{0.02, -5}, q_out{0.05, 3};
using per_tensor_layer =
    ctattn::qlinear<3, 2, q_in, q_out, ctattn::weight_format::int8, ctattn::weight_granularity::per_tensor>;

int use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr ctattn::channel_scales<2> scales{{0.1, 0.2}};
  constexpr per_tensor_layer layer{{{1, -2, 3}, {-8, 7, 0}}, {10, -4}, scales};  // <- mistake
#else
  constexpr ctattn::channel_scales<1> scales{{0.2}};
  constexpr per_tensor_layer layer{{{1, -2, 3}, {-8, 7, 0}}, {10, -4}, scales};
#endif
  return layer.weight_value(1, 0);
}
