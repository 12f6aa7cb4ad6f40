// Rule: a ctattn::model has at least one member
// expected-error: ctattn: a ctattn::model needs at least one member
// expected-rule: shape_error::model_must_have_members<ctattn::op::model, classifier, ctattn::count<0> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier);
};
#else
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
#endif
const auto y = classifier{}.forward(ctattn::matrix<float, 3, 4>{});  // <- mistake

float use() { return y(0, 0); }
