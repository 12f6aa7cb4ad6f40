// Rule: a layer with int16 activations (16x8) takes int8 weights; int4 weights go with int8 activations
// expected-error: ctattn: a layer with int16 activations \(16x8\) takes int8 weights, and this one was given int4
// expected-rule: shape_error::int16_activations_take_int8_weights<ctattn::op::quantize, ctattn::shape_error::weight_format_constant<ctattn::weight_format::int4>, ctattn::shape_error::activation_format_constant<ctattn::activation_format::int16>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {
    {"input", {-1.0, 1.0}}, {"hidden", {-2.0, 3.0}}, {"act", {0.0, 3.0}}, {"out", {-4.0, 4.0}}};
#ifdef CTATTN_COMPILE_FAIL
inline constexpr ctattn::quantize_options options{.weights = ctattn::weight_format::int4,
                                                  .activations = ctattn::activation_format::int16};
#else
inline constexpr ctattn::quantize_options options{.activations = ctattn::activation_format::int16};
#endif
constexpr auto q = ctattn::quantize<ranges, options>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
