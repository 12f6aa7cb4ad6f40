// Rule: the int8 encoder layer is pre-norm (norm_first = true)
// expected-error: ctattn: int8 encoder layers are pre-norm
// expected-rule: shape_error::int8_encoder_layer_must_be_norm_first<ctattn::op::quantized_encoder_layer, std::integral_constant<bool, false> ?>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/transformer.hpp>

inline constexpr ctattn::encoder_layer_quantizations q{};
inline constexpr ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, /*norm_first=*/false> post_norm{};
inline constexpr ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, /*norm_first=*/true> pre_norm{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  (void)ctattn::quantize_encoder_layer<q>(post_norm);  // <- mistake
#else
  (void)ctattn::quantize_encoder_layer<q>(pre_norm);
#endif
}
