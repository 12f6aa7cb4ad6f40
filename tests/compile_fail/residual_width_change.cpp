// Rule: a residual connection adds a layer's output to its input, so the layer keeps the width
// expected-error: ctattn: a residual connection adds a layer's output to its input, so the layer must keep the width
// expected-rule: shape_error::residual_layer_must_keep_width<ctattn::op::residual, ctattn::dim<ctattn::unnamed, 8>, ctattn::dim<ctattn::unnamed, 4> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::residual<ctattn::linear<float, 8, 4>> block{};  // <- mistake
#else
inline const ctattn::residual<ctattn::linear<float, 8, 8>> block{};
#endif

float use() { return block.inner.weight(0, 0); }
