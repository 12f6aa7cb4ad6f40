// Rule: ctattn::quantize quantizes a token_embedding with the position_embedding declared right after it
// expected-error: ctattn: ctattn::quantize quantizes a token_embedding together with the position_embedding
// expected-rule: shape_error::token_embedding_needs_positions_after_it<ctattn::op::quantize, ctattn::token_embedding<float, 10(UL)?, 4(UL)?>, ctattn::basic_linear<float, 4(UL)?, 2(UL)?, ctattn::out_by_in, true>, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

#ifdef CTATTN_COMPILE_FAIL
struct tagger : ctattn::model<tagger> {
  BOOST_HANA_DEFINE_STRUCT(tagger, (ctattn::token_embedding<float, 10, 4>, embed),
                           (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
#else
struct tagger : ctattn::model<tagger> {
  BOOST_HANA_DEFINE_STRUCT(tagger, (ctattn::token_embedding<float, 10, 4>, embed),
                           (ctattn::position_embedding<float, 6, 4>, pos),
                           (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
#endif
inline constexpr ctattn::named_range ranges[] = {
    {"embed.weight", {-1.0, 1.0}}, {"pos.weight", {-1.0, 1.0}}, {"pos", {-2.0, 2.0}}, {"out", {-3.0, 3.0}}};
constexpr auto q = ctattn::quantize<ranges>(tagger{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
