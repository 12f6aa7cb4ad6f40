// Rule: a ctattn::model runs its members in the order they are declared; member k's output width is the next's input
// expected-error: ctattn: a ctattn::model runs its members in the order they are declared, so a member's output width must match the next member's input width
// expected-rule: shape_error::model_member_output_must_match_next_input<ctattn::count<0>, ctattn::basic_linear<float, 4(UL)?, 8(UL)?, ctattn::out_by_in, true>, ctattn::basic_linear<float, 6(UL)?, 2(UL)?, ctattn::out_by_in, true>, ctattn::dim<ctattn::unnamed, 8>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
constexpr std::size_t out_inputs = 6;  // hidden gives 8
#else
constexpr std::size_t out_inputs = 8;
#endif
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, out_inputs, 2, ctattn::out_by_in, true>, out));
};
const auto y = classifier{}.forward(ctattn::matrix<float, 3, 4>{});  // <- mistake

float use() { return y(0, 0); }
