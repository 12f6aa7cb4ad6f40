// Rule: in ctattn::sequential, layer k's output width is the next layer's input width (activations pass it on)
// expected-error: ctattn: in ctattn::sequential, a layer's output width must match the next layer's input width
// expected-rule: shape_error::layer_output_must_match_next_input<ctattn::count<0>, ctattn::basic_linear<float, 16(UL)?, 32(UL)?, ctattn::out_by_in, true>, ctattn::basic_linear<float, 24(UL)?, 8(UL)?, ctattn::out_by_in, true>, ctattn::dim<ctattn::unnamed, 32>, ctattn::dim<ctattn::unnamed, 24> ?>
#include <ctattn/layers.hpp>

using first = ctattn::linear<float, 16, 32, ctattn::out_by_in, true>;
#ifdef CTATTN_COMPILE_FAIL
using second = ctattn::linear<float, 24, 8, ctattn::out_by_in, true>;
inline const ctattn::sequential<first, ctattn::relu, second> model{};  // <- mistake
#else
using second = ctattn::linear<float, 32, 8, ctattn::out_by_in, true>;
inline const ctattn::sequential<first, ctattn::relu, second> model{};
#endif

float use() {
  const auto y = ctattn::forward(model, ctattn::matrix<float, 4, 16>{});
  return y(0, 0);
}
