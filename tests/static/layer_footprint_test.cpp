// The layers' footprints (ctattn::layer_footprint, ctattn::composed): each figure against the sizes of the objects
// the forward holds, counted here by hand from the layer's code, in float and double. The firmware test
// firmware_verified_sorter_footprint holds a model's figures to the linker and to GCC's call graph.
#include <array>
#include <cstddef>

#include <ctattn/layers.hpp>

namespace {

template <typename T>
constexpr bool layer_figures_hold() {
  constexpr std::size_t n = 5;
  constexpr std::size_t d = 8;
  constexpr std::size_t hidden = 12;
  constexpr std::size_t block = n * d * sizeof(T);  // one n x d activation
  using x = ctattn::matrix<T, n, d>;
  bool ok = true;

  // linear: its weight and bias in flash, nothing on the stack.
  using proj = ctattn::linear<T, d, hidden, ctattn::out_by_in, true>;
  constexpr auto linear = ctattn::layer_footprint<proj, x>;
  ok = ok && linear == ctattn::footprint{(hidden * d + hidden) * sizeof(T), block, n * hidden * sizeof(T), 0, 0};

  // activations hold nothing.
  ok = ok && ctattn::layer_footprint<ctattn::gelu, x> == ctattn::footprint{0, block, block, 0, 0};

  // LayerNorm: weight, bias and eps; one row of offsets on the stack. RMSNorm: weight and eps.
  ok = ok && ctattn::layer_footprint<ctattn::layer_norm<T, d>, x> ==
                 ctattn::footprint{(2 * d + 1) * sizeof(T), block, block, 0, d * sizeof(T)};
  ok = ok &&
       ctattn::layer_footprint<ctattn::rms_norm<T, d>, x> == ctattn::footprint{(d + 1) * sizeof(T), block, block, 0, 0};
  ok = ok && ctattn::layer_footprint<ctattn::layer_norm<T, d, false>, x>.weight_bytes == sizeof(T);

  // feed-forward: linear1's and the activation's n x hidden results on the stack.
  using ff = ctattn::feed_forward<T, d, hidden, ctattn::relu>;
  constexpr std::size_t ff_weights = (2 * hidden * d + hidden + d) * sizeof(T);
  constexpr std::size_t hidden_block = n * hidden * sizeof(T);
  ok = ok && ctattn::layer_footprint<ff, x> == ctattn::footprint{ff_weights, block, block, 0, 2 * hidden_block};
  // SwiGLU: three weights without biases; w1's result, the gate, w3's result and the product.
  using gated = ctattn::gated_feed_forward<T, d, hidden>;
  ok = ok && ctattn::layer_footprint<gated, x> ==
                 ctattn::footprint{3 * hidden * d * sizeof(T), block, block, 0, 4 * hidden_block};
  // residual: the inner block's stack and its result.
  ok = ok && ctattn::layer_footprint<ctattn::residual<ff>, x> ==
                 ctattn::footprint{ff_weights, block, block, 0, 2 * hidden_block + block};

  // multi-head self-attention, 2 heads: Q, K, V, the concatenation and the output, and the exact kernel's two rows
  // of n scores.
  using weights = ctattn::multi_head_attention_weights<T, 2, d, ctattn::out_by_in, true>;
  using attention = ctattn::multi_head_attention_layer<weights, ctattn::causal_mask>;
  constexpr std::size_t attention_weights = (4 * d * d + 4 * d) * sizeof(T);
  constexpr std::size_t attention_stack = 5 * block + 2 * n * sizeof(T);
  ok = ok &&
       ctattn::layer_footprint<attention, x> == ctattn::footprint{attention_weights, block, block, 0, attention_stack};

  // The encoder layer: six n x d results, then the deepest sublayer (attention or feed-forward).
  using encoder = ctattn::transformer_encoder_layer<T, d, 2, hidden, ctattn::relu, true>;
  constexpr std::size_t encoder_weights = attention_weights + ff_weights + 2 * (2 * d + 1) * sizeof(T);
  constexpr std::size_t deepest = attention_stack > 2 * hidden_block ? attention_stack : 2 * hidden_block;
  constexpr auto one = ctattn::layer_footprint<encoder, x>;
  ok = ok && one == ctattn::footprint{encoder_weights, block, block, 0, 6 * block + deepest};
  ok = ok && one.weight_bytes == sizeof(encoder);
  ok = ok && one.weight_bytes == ctattn::parameter_count(encoder{}) * sizeof(T) + 2 * sizeof(T);  // + two eps

  // The decoder layer over an encoder output of m rows: both inputs; nine n x d results; the cross-attention's
  // Q (n x d), K and V (m x d), concatenation and output (n x d), and two rows of m scores.
  constexpr std::size_t m = 7;
  using memory = ctattn::matrix<T, m, d>;
  using decoder = ctattn::transformer_decoder_layer<T, d, 2, hidden>;
  constexpr std::size_t cross_stack = 3 * block + 2 * m * d * sizeof(T) + 2 * m * sizeof(T);
  constexpr auto decoding = decoder::template footprint_of<x, memory>();
  ok = ok && decoding == ctattn::footprint{sizeof(decoder), block + m * d * sizeof(T), block, 0,
                                           9 * block + (cross_stack > deepest ? cross_stack : deepest)};
  ok = ok && sizeof(decoder) == 2 * attention_weights + ff_weights + 3 * (2 * d + 1) * sizeof(T);

  // Embeddings: the table in flash; the ids in, n x d out.
  using tokens = ctattn::token_embedding<T, 11, d>;
  ok = ok && ctattn::layer_footprint<tokens, std::array<int, n>> ==
                 ctattn::footprint{11 * d * sizeof(T), n * sizeof(int), block, 0, 0};
  ok = ok && ctattn::layer_footprint<ctattn::position_embedding<T, 9, d>, x> ==
                 ctattn::footprint{9 * d * sizeof(T), block, block, 0, 0};

  // A sequence: weights add; every result but the last on the stack, with the deepest layer's stack.
  using mlp = ctattn::sequential<proj, ctattn::relu, ctattn::linear<T, hidden, 3, ctattn::out_by_in, true>>;
  ok = ok && ctattn::layer_footprint<mlp, x> ==
                 ctattn::footprint{ff_weights - (hidden * d + d) * sizeof(T) + (3 * hidden + 3) * sizeof(T), block,
                                   n * 3 * sizeof(T), 0, 2 * hidden_block};
  using stack = ctattn::sequential<encoder, encoder, ctattn::layer_norm<T, d>>;
  ok = ok && ctattn::layer_footprint<stack, x> == ctattn::footprint{2 * sizeof(encoder) + (2 * d + 1) * sizeof(T),
                                                                    block, block, 0, 2 * block + one.stack_bytes};
  return ok;
}
static_assert(layer_figures_hold<float>());
static_assert(layer_figures_hold<double>());

// composed: the calls' weights and workspaces add up; every result but the last is held; the deepest stack on top.
constexpr ctattn::footprint a{10, 1, 100, 3, 50};
constexpr ctattn::footprint b{20, 100, 200, 4, 400};
constexpr ctattn::footprint c{30, 200, 7, 5, 10};
static_assert(ctattn::composed(a) == a);
static_assert(ctattn::composed(a, b, c) == ctattn::footprint{60, 1, 7, 12, 100 + 200 + 400});
static_assert(ctattn::composed(a, b, c).ram_bytes() == 1 + 7 + 12 + 700);

// A model's budget, as firmware writes it: a two-layer encoder of d_model 32 over 16 tokens in float.
using block32 = ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true>;
constexpr auto model = ctattn::layer_footprint<ctattn::sequential<block32, block32>, ctattn::matrix<float, 16, 32>>;
static_assert(model.weight_bytes <= 72 * 1024, "weights must fit 72 KiB of flash");
static_assert(model.ram_bytes() <= 32 * 1024, "one inference must fit 32 KiB of RAM");

}  // namespace
