// Rule: an int8 llama attention's input has its width (d_model, the projections' inputs)
// expected-error: ctattn: in a product a \* b the columns of a must match the rows of b
// expected-rule: shape_error::inner_dimensions_must_match<ctattn::op::quantized_projection, ctattn::dim<ctattn::unnamed, 6>, ctattn::dim<ctattn::unnamed, 8> ?>
#include <ctattn/quantized/llama.hpp>

inline constexpr ctattn::quantization q_x{1.0 / 64};
inline constexpr ctattn::llama_attention_quantizations q{.query = {1.0 / 64},
                                                         .key = {1.0 / 64},
                                                         .value = {1.0 / 64},
                                                         .scores = {1.0 / 16},
                                                         .context = {1.0 / 64},
                                                         .output = {1.0 / 64}};
// Width 8, 2 heads over 1 key/value head, 4 positions.
inline constexpr auto attention_q =
    ctattn::quantize_llama_attention<q_x, q>(ctattn::llama_attention<float, 8, 2, 1, 4>{});
inline const ctattn::qmatrix<3, 6, q_x> narrow_x{};
inline const ctattn::qmatrix<3, 8, q_x> x{};

int use() {
#ifdef CTATTN_COMPILE_FAIL
  return attention_q.forward(narrow_x)(0, 0);  // <- mistake
#else
  return attention_q.forward(x)(0, 0);
#endif
}
