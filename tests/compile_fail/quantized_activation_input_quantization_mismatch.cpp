// Rule: an int8 activation's table was made for one input quantization, which its input must have
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_activation, ctattn::quantization_constant<
#include <ctattn/quantized/activation.hpp>

#include <ctattn/layers/activation.hpp>  // the float layer it is quantized from

inline constexpr ctattn::quantization q_hidden{0.04, -20}, q_other{0.05, -20}, q_gelu{0.03, -122};
inline constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
inline const ctattn::qmatrix<2, 8, q_other> other_hidden{};
inline const ctattn::qmatrix<2, 8, q_hidden> hidden{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::activate(other_hidden, gelu_q);  // <- mistake
#else
  (void)ctattn::activate(hidden, gelu_q);
#endif
}
