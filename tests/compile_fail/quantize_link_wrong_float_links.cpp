// Rule: int8 link J of a model is made from the float links it comes from, in order
// expected-error: ctattn: quantize_link<J, Ranges, M> takes the float links int8 link J is made of, and these are
// expected-rule: shape_error::int8_link_needs_its_float_links<ctattn::op::quantize_link, ctattn::detail::link_types<ctattn::basic_linear<float, 4(UL)?, 4(UL)?, ctattn::out_by_in, true> ?>, ctattn::detail::link_types<ctattn::basic_linear<float, 4(UL)?, 2(UL)?, ctattn::out_by_in, true> ?> ?>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/links.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 4, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {
    {"input", {-1.0, 1.0}}, {"hidden", {-2.0, 2.0}}, {"act", {0.0, 2.0}}, {"out", {-3.0, 3.0}}};
constexpr classifier weights{};

#ifdef CTATTN_COMPILE_FAIL
constexpr auto first = ctattn::quantize_link<0, ranges, classifier>(ctattn::link<2>(weights));  // <- mistake
#else
constexpr auto first = ctattn::quantize_link<0, ranges, classifier>(ctattn::link<0>(weights));
#endif

int use() { return static_cast<int>(sizeof(first)); }
