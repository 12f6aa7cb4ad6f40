// Rule: a model derives from ctattn::model of itself; calibration does not run another model's members over it
// expected-error: ctattn: a model derives from ctattn::model of itself \(struct m : ctattn::model<m>\), and this one does not
// expected-rule: shape_error::model_must_derive_from_model_of_itself<ctattn::op::record_ranges, regressor, classifier, false>
#include <ctattn/quantized/ranges.hpp>

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
inline const regressor model{};
inline const ctattn::matrix<float, 3, 4> x{};

float use() {
  ctattn::activation_ranges<8> ranges{};
  const auto y = ctattn::record_ranges(model, x, ranges);  // <- mistake
  return y(0, 0);
}
