// Rule: a sequential's input has the first layer's input width, reported from the sequential's forward
// expected-error: ctattn: a layer's input must have as many columns as the layer's input width
// expected-rule: shape_error::input_width_must_match_layer<ctattn::op::layer, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/layers.hpp>

inline const ctattn::sequential<ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, ctattn::relu> stack{};
#ifdef CTATTN_COMPILE_FAIL
constexpr std::size_t features = 5;  // the first linear takes 4
#else
constexpr std::size_t features = 4;
#endif
const auto y = ctattn::forward(stack, ctattn::matrix<float, 3, features>{});  // <- mistake

float use() { return y(0, 0); }
