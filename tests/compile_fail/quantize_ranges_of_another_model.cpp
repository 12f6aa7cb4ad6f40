// Rule: ctattn::quantize reads every member's output range; a table recorded for another model lacks some
// expected-error: ctattn: the ranges table lacks a member of this model
// expected-rule: shape_error::ranges_must_hold_every_member<ctattn::op::quantize, classifier, ctattn::point<'o', 'u', 't'>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::layer_norm<float, 4>, normed),
                           (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
#ifdef CTATTN_COMPILE_FAIL
// recorded for a model whose head was named `head`
inline constexpr ctattn::named_range ranges[] = {
    {"input", {-1.0, 1.0}}, {"normed", {-2.0, 2.0}}, {"head", {-3.0, 3.0}}};
#else
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}}, {"normed", {-2.0, 2.0}}, {"out", {-3.0, 3.0}}};
#endif
constexpr auto q = ctattn::quantize<ranges>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
