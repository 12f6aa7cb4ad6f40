// Rule: decoding token by token (step, with an int8 KV cache) needs int8 activations; a 16x8 layer runs forward
// expected-error: ctattn: decoding token by token \(step, with an int8 KV cache\) needs int8 activations, and this
// expected-rule: shape_error::int16_layer_has_no_decoding_step<ctattn::op::decoding_step, ctattn::shape_error::activation_format_constant<ctattn::activation_format::int16> ?>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

using layer_type = ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, true, ctattn::causal_mask>;
inline constexpr ctattn::encoder_layer_ranges ranges{{-2, 2}, {-3, 3}, {-2, 2}, {-2, 2}, {-2, 2}, {-4, 4}, {-2, 2},
                                                     {-2, 2}, {-3, 3}, {-3, 3}, {-3, 3}, {-1, 3}, {-2, 2}, {-4, 4}};
inline constexpr auto q16 = ctattn::encoder_layer_quantizations_for(ranges, ctattn::activation_format::int16);
inline constexpr auto layer16 = ctattn::quantize_encoder_layer<q16>(layer_type{});
inline const ctattn::q16matrix<1, 8, q16.input> x16{};

int use() {
  decltype(layer16)::output_row y{};
#ifdef CTATTN_COMPILE_FAIL
  decltype(layer16)::cache_type<4> cache{};
  const bool stepped = layer16.step(x16, cache, y);  // <- mistake
#else
  y = layer16.forward(x16);
  const bool stepped = true;
#endif
  return stepped ? y(0, 0) : 0;
}
