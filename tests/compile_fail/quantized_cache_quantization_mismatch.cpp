// Rule: an int8 key/value cache holds W_K's and W_V's outputs in their quantizations
// expected-error: ctattn: the int8 cache holds keys or values in another quantization than the attention's W_K or
// expected-rule: shape_error::int8_cache_must_hold_the_projections_quantization<ctattn::op::kv_cache, ctattn::quantization_constant<
#include <ctattn/quantized/kv_cache.hpp>

inline constexpr ctattn::quantization q{0.05, 0};
inline constexpr ctattn::quantization other{0.05, 1};
inline const ctattn::qlinear<8, 8, q, q> projection{};
inline const auto weights =
    ctattn::make_qmulti_head_attention_weights<2>(projection, projection, projection, projection);

int use() {
#ifdef CTATTN_COMPILE_FAIL
  ctattn::qkv_cache<4, 8, 8, other, q> cache{};
#else
  ctattn::qkv_cache<4, 8, 8, q, q> cache{};
#endif
  ctattn::qmatrix<1, 8, q> y{};
  const bool stepped =
      ctattn::multi_head_attention_step<q>(ctattn::qmatrix<1, 8, q>{}, weights, cache, y);  // <- mistake
  return stepped ? y(0, 0) : 0;
}
