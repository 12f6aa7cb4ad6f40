// Rule: ctattn::quantize reads every point inside a layer too; a table that lacks one (edited, or recorded before the model changed) names it
// expected-error: ctattn: the ranges table lacks a point inside a layer of this model
// expected-rule: shape_error::ranges_must_hold_every_point<ctattn::op::quantize, ctattn::point<'b', 'l', 'o', 'c', 'k', '.', 'n', 'o', 'r', 'm', '1'>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct encoder : ctattn::model<encoder> {
  BOOST_HANA_DEFINE_STRUCT(encoder, (ctattn::transformer_encoder_layer<float, 4, 2, 8, ctattn::relu, true>, block));
};
// Every point of the pre-norm layer `block`, as ctattn::record_ranges writes them, but the mistake's
inline constexpr ctattn::named_range ranges[] = {
    {"input", {-1.0, 1.0}},
#ifndef CTATTN_COMPILE_FAIL
    {"block.norm1", {-2.0, 2.0}},
#endif
    {"block.query", {-1.5, 1.5}},     {"block.key", {-1.5, 1.5}},          {"block.value", {-1.5, 1.5}},
    {"block.scores", {-3.0, 3.0}},    {"block.context", {-1.0, 1.0}},      {"block.attention", {-1.0, 1.0}},
    {"block.sum1", {-2.0, 2.0}},      {"block.norm2", {-2.0, 2.0}},        {"block.hidden", {-2.0, 2.0}},
    {"block.activation", {0.0, 2.0}}, {"block.feed_forward", {-1.0, 1.0}}, {"block", {-3.0, 3.0}}};
constexpr auto q = ctattn::quantize<ranges>(encoder{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
