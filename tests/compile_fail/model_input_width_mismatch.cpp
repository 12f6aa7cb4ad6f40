// Rule: a model's input has the first member's input width, reported from the model's forward (the user's line near)
// expected-error: ctattn: a layer's input must have as many columns as the layer's input width
// expected-rule: shape_error::input_width_must_match_layer<ctattn::op::layer, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/layers.hpp>

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
                           (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
};
#ifdef CTATTN_COMPILE_FAIL
constexpr std::size_t features = 5;  // hidden takes 4
#else
constexpr std::size_t features = 4;
#endif
const auto y = classifier{}.forward(ctattn::matrix<float, 3, features>{});  // <- mistake

float use() { return y(0, 0); }
