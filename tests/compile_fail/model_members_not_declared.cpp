// Rule: a ctattn::model lists its members with BOOST_HANA_DEFINE_STRUCT, from which its forward is derived
// expected-error: ctattn: a ctattn::model lists its members with BOOST_HANA_DEFINE_STRUCT
// expected-rule: shape_error::model_members_must_be_declared<ctattn::op::model, classifier, false>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
struct classifier : ctattn::model<classifier> {
  ctattn::linear<float, 4, 2, ctattn::out_by_in, true> out{};
};
#else
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
#endif
const auto y = classifier{}.forward(ctattn::matrix<float, 3, 4>{});  // <- mistake

float use() { return y(0, 0); }
