// Rule: an int8 pool (and class token) takes rows in the quantization it was made for
// expected-error: ctattn: the quantized input has another scale or zero point than the layer was quantized for
// expected-rule: shape_error::input_quantization_must_match_layer<ctattn::op::quantized_front_end, ctattn::quantization_constant<
#include <ctattn/ctattn.hpp>

inline constexpr ctattn::quantization tokens_q{0.02, -6}, other_q{0.01, 4}, mean_q{0.005, 3};
inline const ctattn::qmatrix<5, 8, tokens_q> tokens{};
inline const ctattn::qmatrix<5, 8, other_q> other{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  const auto pooled = ctattn::qmean_pool<tokens_q, mean_q>{}.forward(other);  // <- mistake
#else
  const auto pooled = ctattn::qmean_pool<tokens_q, mean_q>{}.forward(tokens);
#endif
  return pooled(0, 0);
}
