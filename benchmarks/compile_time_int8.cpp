// Compile-time benchmark of the int8 kernels: one int8 computation of a KWT-1 layer's size evaluated inside
// static_assert, chosen by -DCTATTN_INT8_FORM (0: the inputs and the quantized weights alone, the baseline; 1: a
// 99 x 64 by 64 x 256 projection; 2: one-head attention over 99 tokens of 64 with W_Q, W_K, W_V, W_O; 3: a post-norm
// encoder layer, d_model 64, MLP 256, GELU). Run by benchmarks/compile_time_int8.sh, which times the compiler,
// reads its peak memory and subtracts the baseline, and by benchmarks/compile_time_instructions.sh with fewer tokens
// (-DCTATTN_INT8_TOKENS, default 99).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ctattn/layers.hpp>
#include <ctattn/quantized/attention.hpp>
#include <ctattn/quantized/linear.hpp>
#include <ctattn/quantized/transformer.hpp>

#include "compile_time_inputs.hpp"

#ifndef CTATTN_INT8_FORM
#define CTATTN_INT8_FORM 3
#endif
#ifndef CTATTN_INT8_TOKENS
#define CTATTN_INT8_TOKENS 99
#endif

namespace {

constexpr std::size_t n = CTATTN_INT8_TOKENS, d = 64, ff = 256;
using block = ctattn::transformer_encoder_layer<float, d, 1, ff, ctattn::gelu, /*norm_first=*/false>;

// Weights fixed by their place, (k 37 mod 19 - 9) / 64 for the k-th parameter, the norms' gains 1.
constexpr block float_layer = [] {
  block b{};
  int k = 0;
  ctattn::for_each_parameter(b, [&](std::string_view name, const auto& view) {
    const bool gain = name.ends_with("norm1.weight") || name.ends_with("norm2.weight");
    for (std::size_t i = 0; i < view.size; ++i, ++k) view[i] = gain ? 1.0f : static_cast<float>((k * 37) % 19 - 9) / 64;
  });
  return b;
}();

constexpr ctattn::quantization q_x{0.01, 3}, q_qkv{0.05, -2}, q_scores{1.0 / 256, -128}, q_context{0.04, 1},
    q_attention{0.05, 4}, q_sum{0.06, 0}, q_norm{0.03, -5}, q_hidden{0.08, -10}, q_act{0.05, -100}, q_ff{0.06, 3},
    q_out{0.03, 2};
constexpr ctattn::encoder_layer_quantizations q{q_x,   q_norm, q_qkv,    q_qkv, q_qkv, q_scores, q_context, q_attention,
                                                q_sum, q_norm, q_hidden, q_act, q_ff,  q_sum,    q_out};
constexpr auto x = ctattn::quantize<q_x>(lcg_filled<ctattn::matrix<float, n, d>>(1));

// A checksum of an int8 result: a constant only when the whole computation ran.
template <typename Y>
constexpr std::int32_t checksum(const Y& y) {
  std::int32_t sum = 0;
  for (std::size_t i = 0; i < Y::rows; ++i) {
    for (std::size_t j = 0; j < Y::cols; ++j) sum += y(i, j) * static_cast<std::int32_t>(i + j + 1);
  }
  return sum;
}

// Every form quantizes the same weights, so that the baseline's cost is the whole of each form's set-up.
constexpr auto layer_q = ctattn::quantize_encoder_layer<q>(float_layer);
constexpr auto up = ctattn::quantize_linear<q_x, q_hidden>(float_layer.ff.linear1);

#if CTATTN_INT8_FORM == 0
static_assert(checksum(x) != 0x7fffffff && sizeof(layer_q) > 0 && sizeof(up) > 0);
#elif CTATTN_INT8_FORM == 1  // n d ff: 1,622,016 multiply-adds at 99 tokens
static_assert(checksum(ctattn::project(x, up)) != 0x7fffffff);
#elif CTATTN_INT8_FORM == 2  // 4 n d^2 + 2 n^2 d = 2,876,544 multiply-adds at 99 tokens
static_assert(checksum(ctattn::multi_head_attention<q_scores>(x, layer_q.self_attn)) != 0x7fffffff);
#else                        // n (4 d^2 + 2 d ff) + 2 n^2 d = 6,120,576 multiply-adds at 99 tokens
static_assert(checksum(layer_q.forward(x)) != 0x7fffffff);
#endif

}  // namespace
