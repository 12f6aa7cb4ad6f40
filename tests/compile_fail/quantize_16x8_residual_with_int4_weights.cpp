// Rule: a layer with int16 activations (16x8) takes int8 weights, inside a residual connection too: its
// feed-forward block in 16x8 with int4 weights stops the build (the head, int8 by its override, may keep int4)
// expected-error: ctattn: a layer with int16 activations \(16x8\) takes int8 weights, and this one was given int4
// expected-rule: shape_error::int16_activations_take_int8_weights<ctattn::op::quantize, ctattn::shape_error::weight_format_constant<ctattn::weight_format::int4>, ctattn::shape_error::activation_format_constant<ctattn::activation_format::int16>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct block_model : ctattn::model<block_model> {
  BOOST_HANA_DEFINE_STRUCT(block_model, (ctattn::residual<ctattn::feed_forward<float, 4, 8, ctattn::relu>>, block),
                           (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, head));
};
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}},
                                                 {"block.inner.hidden", {-2.0, 3.0}},
                                                 {"block.inner.activation", {0.0, 3.0}},
                                                 {"block.inner", {-2.0, 2.0}},
                                                 {"block", {-3.0, 3.0}},
                                                 {"head", {-4.0, 4.0}}};
inline constexpr ctattn::layer_weights int8_head[] = {
    {"head", ctattn::weight_format::int4, ctattn::weight_granularity::per_channel, ctattn::activation_format::int8}};
#ifdef CTATTN_COMPILE_FAIL
inline constexpr ctattn::quantize_options options{
    .weights = ctattn::weight_format::int4, .activations = ctattn::activation_format::int16, .overrides = int8_head};
#else
inline constexpr ctattn::quantize_options options{.activations = ctattn::activation_format::int16,
                                                  .overrides = int8_head};
#endif
constexpr auto q = ctattn::quantize<ranges, options>(block_model{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
