// Rule: an override that asks for a layer in 16x8 names a layer with a 16x8 form; a patch embedding stays int8,
// converted at its edges
// expected-error: ctattn: an override in quantize_options asks for a layer in 16x8 \(activation_format::int16\), and
// expected-rule: shape_error::layer_needs_a_16x8_form<ctattn::op::quantize, classifier, ctattn::point<'p', ?'a', ?'t', ?'c', ?'h', ?'e', ?'s'>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::feed_forward<float, 4, 8, ctattn::relu>, ff),
                           (ctattn::layer_norm<float, 4>, norm), (ctattn::patch_embedding_1d<float, 4, 2, 4>, patches),
                           (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {
    {"input", {-1.0, 1.0}}, {"ff.hidden", {-2.0, 3.0}}, {"ff.activation", {0.0, 3.0}}, {"ff", {-2.0, 2.0}},
    {"norm", {-3.0, 3.0}},  {"patches", {-3.0, 3.0}},   {"out", {-4.0, 4.0}}};
#ifdef CTATTN_COMPILE_FAIL
inline constexpr ctattn::layer_weights in_16x8[] = {{"patches", ctattn::weight_format::int8,
                                                     ctattn::weight_granularity::per_channel,
                                                     ctattn::activation_format::int16}};
#else
inline constexpr ctattn::layer_weights in_16x8[] = {
    {"ff", ctattn::weight_format::int8, ctattn::weight_granularity::per_channel, ctattn::activation_format::int16}};
#endif
inline constexpr ctattn::quantize_options options{.overrides = in_16x8};
constexpr auto q = ctattn::quantize<ranges, options>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
