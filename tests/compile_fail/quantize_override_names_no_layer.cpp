// Rule: a per-layer weight override names a layer of the model, as the ranges name it; a path that names none (a
// typo, or a part inside a layer) would silently change nothing
// expected-error: ctattn: a layer_weights override in quantize_options names no layer of the model
// expected-rule: shape_error::weight_override_must_name_a_layer<ctattn::op::quantize, classifier, ctattn::point<'h', ?'i', ?'d', ?'d', ?'e', ?'n', ?'\.', ?'w'
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {
    {"input", {-1.0, 1.0}}, {"hidden", {-2.0, 3.0}}, {"act", {0.0, 3.0}}, {"out", {-4.0, 4.0}}};
#ifdef CTATTN_COMPILE_FAIL
inline constexpr ctattn::layer_weights hidden_in_int8[] = {{"hidden.weight", ctattn::weight_format::int8}};
#else
inline constexpr ctattn::layer_weights hidden_in_int8[] = {{"hidden", ctattn::weight_format::int8}};
#endif
inline constexpr ctattn::quantize_options options{.weights = ctattn::weight_format::int4, .overrides = hidden_in_int8};
constexpr auto q = ctattn::quantize<ranges, options>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
