// Rule: an int8 feed-forward block runs its rows in blocks of at least one row
// expected-error: ctattn: the feed-forward block runs its rows in blocks of Rows rows \(feed_forward<Rows>\(h\)\), and
// expected-rule: shape_error::rows_per_block_must_be_positive<ctattn::op::quantized_feed_forward, ctattn::count<0(UL)?> ?>
#include <ctattn/layers/transformer.hpp>
#include <ctattn/quantized/transformer.hpp>

inline constexpr ctattn::quantization q_h{0.02, 0}, q_hidden{0.05, -10}, q_act{0.03, -100}, q_ff{0.05, 3};
inline constexpr ctattn::encoder_layer_quantizations q{q_h, q_h, q_h,      q_h,   q_h,  q_h, q_h, q_h,
                                                       q_h, q_h, q_hidden, q_act, q_ff, q_h, q_h};
inline const ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, true> layer{};

void use() {
  const auto layer_q = ctattn::quantize_encoder_layer<q>(layer);
  const ctattn::qmatrix<10, 8, q_h> h{};
#ifdef CTATTN_COMPILE_FAIL
  (void)layer_q.feed_forward<0>(h);  // <- mistake
#else
  (void)layer_q.feed_forward<1>(h);
#endif
}
