// Rule: ctattn::quantize maps every float layer of a model to its int8 form; a layer without one stops the build
// expected-error: ctattn: ctattn::quantize has no int8 form of this layer
// expected-rule: shape_error::layer_needs_an_int8_form<ctattn::op::quantize, ctattn::rms_norm<float, 4(UL)?(, true)?>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

#ifdef CTATTN_COMPILE_FAIL
using norm = ctattn::rms_norm<float, 4>;  // no int8 form
#else
using norm = ctattn::layer_norm<float, 4>;
#endif
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (norm, normed), (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}}, {"normed", {-2.0, 2.0}}, {"out", {-3.0, 3.0}}};
constexpr auto q = ctattn::quantize<ranges>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
