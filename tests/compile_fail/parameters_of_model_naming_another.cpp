// Rule: a model derives from ctattn::model of itself; its parameters are walked (and loaded) only then
// expected-error: ctattn: a model derives from ctattn::model of itself \(struct m : ctattn::model<m>\), and this one does not
// expected-rule: shape_error::model_must_derive_from_model_of_itself<ctattn::op::parameters, regressor, classifier, false>
#include <ctattn/layers.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
};
#ifdef CTATTN_COMPILE_FAIL
using base = ctattn::model<classifier>;  // copied from classifier
#else
struct regressor;
using base = ctattn::model<regressor>;
#endif
struct regressor : base {
  BOOST_HANA_DEFINE_STRUCT(regressor, (ctattn::linear<float, 4, 1, ctattn::out_by_in, true>, out));
};

std::size_t use() {
  regressor model{};
  std::size_t floats = 0;
  const auto count = [&](std::string_view, const auto& tensor) { floats += tensor.size; };
  ctattn::for_each_parameter(model, count);  // <- mistake
  return floats;
}
