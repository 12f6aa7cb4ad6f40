// Rule: a struct of layers is a model when it derives from ctattn::model of itself
// expected-error: ctattn: a model derives from ctattn::model of itself \(struct m : ctattn::model<m>\), and this one does not
// expected-rule: shape_error::model_must_derive_from_model_of_itself<ctattn::op::model, classifier, void, false>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
struct no_base {};  // the base forgotten
using base = no_base;
#else
struct classifier;
using base = ctattn::model<classifier>;
#endif
struct classifier : base {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
};
const auto y = ctattn::forward(classifier{}, ctattn::matrix<float, 3, 4>{});  // <- mistake

float use() { return y(0, 0); }
