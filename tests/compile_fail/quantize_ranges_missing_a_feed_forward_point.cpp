// Rule: ctattn::quantize reads the points inside every layer kind, a feed-forward block's too; a table that lacks one names it
// expected-error: ctattn: the ranges table lacks a point inside a layer of this model
// expected-rule: shape_error::ranges_must_hold_every_point<ctattn::op::quantize, ctattn::point<'f', 'f', '.', 'h', 'i', 'd', 'd', 'e', 'n'>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct block : ctattn::model<block> {
  BOOST_HANA_DEFINE_STRUCT(block, (ctattn::layer_norm<float, 4>, norm),
                           (ctattn::feed_forward<float, 4, 8, ctattn::relu>, ff));
};
// Every point of `block` as ctattn::record_ranges writes them, but the mistake's
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}},
                                                 {"norm", {-2.0, 2.0}},
#ifndef CTATTN_COMPILE_FAIL
                                                 {"ff.hidden", {-3.0, 3.0}},
#endif
                                                 {"ff.activation", {0.0, 3.0}},
                                                 {"ff", {-1.0, 1.0}}};
constexpr auto q = ctattn::quantize<ranges>(block{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
