// Rule: an int8 linear layer holds its weights in its own format; int8 weights given to an int4 layer are not
// packed for it
// expected-error: ctattn: these weights are not the layer's kind
// expected-rule: shape_error::layer_weights_must_have_its_format<ctattn::op::quantized_projection, ctattn::int4_weights<2, ?3>, (signed char|std::int8_t) ?\[2\]\[3\]>
#include <ctattn/quantized/linear.hpp>

inline constexpr ctattn::quantization q_in{0.02, -5}, q_out{0.05, 3};
inline constexpr std::int8_t int8_values[2][3] = {{1, -2, 3}, {-8, 7, 0}};
inline constexpr std::int32_t biases[2] = {10, -4};
inline constexpr ctattn::channel_scales<2> scales{{0.1, 0.2}};
using int4_layer = ctattn::qlinear<3, 2, q_in, q_out, ctattn::weight_format::int4>;

int use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr int4_layer layer{int8_values, biases, scales};  // <- mistake
#else
  constexpr int4_layer layer{ctattn::int4_weights<2, 3>::from_values(int8_values), biases, scales};
#endif
  return layer.weight_value(1, 0);
}
