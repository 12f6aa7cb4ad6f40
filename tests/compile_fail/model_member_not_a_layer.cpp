// Rule: a ctattn::model runs its members in turn, so each member is a layer
// expected-error: ctattn: a ctattn::model runs its members in turn, and one of them is not a layer
// expected-rule: shape_error::model_member_must_be_a_layer<ctattn::op::model, ctattn::count<1>, float, false>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
using middle = float;  // a scale, meant for a forward of one's own
#else
using middle = ctattn::relu;
#endif
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden), (middle, act),
                           (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
};
const auto y = classifier{}.forward(ctattn::matrix<float, 3, 4>{});  // <- mistake

float use() { return y(0, 0); }
