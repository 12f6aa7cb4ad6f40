// Rule: imported weights hold as many values as the model has parameters (a header written for another model)
// expected-error: ctattn: the imported weights hold another number of values than the model has parameters
// expected-rule: shape_error::imported_parameters_must_match_model<ctattn::count<6(UL)?>, ctattn::count<8(UL)?> ?>
#include <ctattn/layers.hpp>

// A LayerNorm over 4 features has 8 parameters: weight and bias.
#ifdef CTATTN_COMPILE_FAIL
inline constexpr float values[6] = {1, 1, 1, 0, 0, 0};
constexpr auto norm = ctattn::from_parameters<ctattn::layer_norm<float, 4>>(values);  // <- mistake
#else
inline constexpr float values[8] = {1, 1, 1, 1, 0, 0, 0, 0};
constexpr auto norm = ctattn::from_parameters<ctattn::layer_norm<float, 4>>(values);
#endif

float use() { return norm.weight(0, 0); }
