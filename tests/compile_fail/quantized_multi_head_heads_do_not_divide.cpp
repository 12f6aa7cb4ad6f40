// Rule: int8 multi-head attention splits the projections' width into equal heads (3 does not divide 16)
// expected-error: ctattn: the heads split d_model into equal parts, so the number of heads must divide d_model
// expected-rule: shape_error::heads_must_divide_model_width<ctattn::op::quantized_multi_head_attention, ctattn::count<3>, ctattn::dim<ctattn::unnamed, 16> ?>
#include <ctattn/quantized/attention.hpp>

inline constexpr ctattn::quantization q8{0.05, 0};
inline constexpr ctattn::channel_scales<16> scales{};
using projection = ctattn::qlinear<16, 16, q8, q8, scales>;
inline const ctattn::qmatrix<6, 16, q8> x{};
inline const projection p{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto weights = ctattn::make_qmulti_head_attention_weights<3>(p, p, p, p);  // <- mistake
#else
  const auto weights = ctattn::make_qmulti_head_attention_weights<4>(p, p, p, p);
#endif
  (void)ctattn::multi_head_attention<q8>(x, weights, ctattn::causal);
}
