// Autoregressive decoding with a key/value cache gives causal attention over the whole sequence, row by row, with
// the same bits (exact arithmetic): multi-head attention with PyTorch's weights, and one head with RoPE and ALiBi.
// Asserted at compile time (tests/static/kv_cache_test.cpp) and checked at run time (tests/runtime/kv_cache_test.cpp).
#pragma once

#include "fixtures/attention/multihead.hpp"
#include "support/test_data.hpp"

#include <ctattn/ctattn.hpp>

#include "support/layer_cases.hpp"

namespace ctattn_test::kv_cache_cases {

namespace fx = ctattn_fixtures::multihead::self_attention;

constexpr auto tokens = ctattn_test::to_matrix<float>(fx::x);  // 5 x 8
constexpr auto weights =
    ctattn::from_torch_multihead<2>(fx::in_proj_weight, fx::in_proj_bias, fx::out_proj_weight, fx::out_proj_bias);
constexpr std::size_t n = decltype(tokens)::rows;
constexpr std::size_t d = decltype(tokens)::cols;

// Multi-head: token t decoded over the cache == row t of causal multi-head attention.
constexpr bool multi_head_decoding_matches() {
  const auto full = ctattn::multi_head_attention(tokens, tokens, tokens, weights, ctattn::causal);
  ctattn::kv_cache<float, 7, d> cache{};  // room for two more
  for (std::size_t t = 0; t < n; ++t) {
    ctattn::matrix<float, 1, d> x{};
    ctattn::matrix<float, 1, d> y{};
    for (std::size_t j = 0; j < d; ++j) x(0, j) = tokens(t, j);
    if (!ctattn::multi_head_attention_step(x, weights, cache, y)) return false;
    for (std::size_t j = 0; j < d; ++j) {
      if (y(0, j) != full(t, j)) return false;
    }
  }
  return cache.length == n;
}

// A full cache refuses the token and changes nothing.
constexpr bool full_cache_refuses() {
  ctattn::kv_cache<float, 2, d> cache{};
  ctattn::matrix<float, 1, d> x{}, y{};
  x(0, 0) = 1;
  if (!ctattn::multi_head_attention_step(x, weights, cache, y)) return false;
  if (!ctattn::multi_head_attention_step(x, weights, cache, y)) return false;
  const auto before = cache;
  y(0, 0) = 42;
  return !ctattn::multi_head_attention_step(x, weights, cache, y) && cache == before && y(0, 0) == 42 && cache.full();
}

// One head with RoPE: queries and keys rotated at their positions, before the cache (full) or as they arrive.
constexpr auto q_all = ctattn_test::random_matrix<ctattn::matrix<float, 6, 8>>(21);
constexpr auto k_all = ctattn_test::random_matrix<ctattn::matrix<float, 6, 8>>(22);
constexpr auto v_all = ctattn_test::random_matrix<ctattn::matrix<float, 6, 4>>(23);
constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
constexpr auto layout = ctattn::rotary_layout::rotate_half;

template <typename M>
constexpr ctattn::matrix<float, 1, M::cols> row_of(const M& m, std::size_t t) {
  ctattn::matrix<float, 1, M::cols> r{};
  for (std::size_t j = 0; j < M::cols; ++j) r(0, j) = m(t, j);
  return r;
}

constexpr bool rotary_decoding_matches() {
  const auto full = ctattn::scaled_dot_product_attention(
      ctattn::apply_rotary<layout>(q_all, rope), ctattn::apply_rotary<layout>(k_all, rope), v_all, ctattn::causal);
  ctattn::kv_cache<float, 6, 8, 4> cache{};
  for (std::size_t t = 0; t < 6; ++t) {
    if (!cache.append(ctattn::apply_rotary<layout>(row_of(k_all, t), rope, t), row_of(v_all, t))) return false;
    const auto y = ctattn::attend_cached(ctattn::apply_rotary<layout>(row_of(q_all, t), rope, t), cache);
    for (std::size_t j = 0; j < 4; ++j) {
      if (y(0, j) != full(t, j)) return false;
    }
  }
  return true;
}

// One head with ALiBi: the bias row of the query's position as the step's mask.
constexpr bool alibi_decoding_matches() {
  constexpr float slope = ctattn::alibi_slopes<float, 4>()[1];
  const auto bias = ctattn::alibi_bias<ctattn::alibi_form::causal_bias, 6, 6>(slope);
  const auto full = ctattn::scaled_dot_product_attention(
      q_all, k_all, v_all, ctattn::combine_masks(ctattn::causal, ctattn::additive_bias(bias)));
  ctattn::kv_cache<float, 6, 8, 4> cache{};
  for (std::size_t t = 0; t < 6; ++t) {
    if (!cache.append(row_of(k_all, t), row_of(v_all, t))) return false;
    const auto y = ctattn::attend_cached(row_of(q_all, t), cache, ctattn::additive_bias(row_of(bias, t)));
    for (std::size_t j = 0; j < 4; ++j) {
      if (y(0, j) != full(t, j)) return false;
    }
  }
  return true;
}

// Appending at constant positions inside the capacity (tests/compile_fail/ has one past it).
constexpr bool constant_positions() {
  ctattn::kv_cache<float, 2, 8, 4> cache{};
  cache.append<0>(row_of(k_all, 0), row_of(v_all, 0));
  cache.append<1>(row_of(k_all, 1), row_of(v_all, 1));
  return cache.length == 2 && cache.keys(1, 3) == k_all(1, 3);
}

// A causal transformer layer (PyTorch's trained parameters, pre-norm, gelu) decoded token by token == its forward
// pass over the whole sequence, row by row.
constexpr bool encoder_layer_decoding_matches() {
  namespace lf = ctattn_fixtures::layers::encoder_pre_gelu;
  ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, true, ctattn::causal_mask> layer{};
  if (!load_in_order(layer, lf::params_f32, lf::names, lf::sizes, lf::ranks)) return false;
  const auto x = ctattn::from_array(lf::input_f32);
  const auto full = ctattn::forward(layer, x);
  ctattn::kv_cache<float, 5, 8> cache{};
  for (std::size_t t = 0; t < decltype(x)::rows; ++t) {
    ctattn::matrix<float, 1, 8> y{};
    if (!layer.step(row_of(x, t), cache, y)) return false;
    for (std::size_t j = 0; j < 8; ++j) {
      if (y(0, j) != full(t, j)) return false;
    }
  }
  ctattn::matrix<float, 1, 8> y{};
  return !layer.step(row_of(x, 0), cache, y);  // full: refused
}

// A decoder layer (PyTorch's nn.TransformerDecoderLayer parameters, post-norm relu and pre-norm gelu) decoded token by
// token, its encoder output projected once into a source cache == its forward pass over the whole target, row by
// row; and a source cache larger than the memory (its unused rows masked) gives the same bits.
template <typename Layer, typename T, std::size_t P, std::size_t N, std::size_t R, std::size_t C, std::size_t RM,
          std::size_t CM, std::size_t RO, std::size_t CO>
constexpr bool decoder_layer_decoding_matches(const T (&params)[P], const char* const (&names)[N],
                                              const std::size_t (&sizes)[N], const std::size_t (&ranks)[N],
                                              const T (&input)[R][C], const T (&memory)[RM][CM], const T (&)[RO][CO]) {
  Layer layer{};
  if (!load_in_order(layer, params, names, sizes, ranks)) return false;
  const auto x = ctattn::from_array(input);
  const auto m = ctattn::from_array(memory);
  const auto full = layer.forward(x, m);
  ctattn::kv_cache<T, R, C> cache{};
  ctattn::kv_cache<T, RM, CM> source{};
  ctattn::kv_cache<T, RM + 3, CM> roomy_source{};
  layer.prepare(m, source);
  layer.prepare(m, roomy_source);
  if (source.length != RM || roomy_source.length != RM) return false;
  ctattn::kv_cache<T, R, C> roomy_cache{};
  for (std::size_t t = 0; t < R; ++t) {
    ctattn::matrix<T, 1, C> y{};
    ctattn::matrix<T, 1, C> roomy_y{};
    if (!layer.step(row_of(x, t), cache, source, y)) return false;
    if (!layer.step(row_of(x, t), roomy_cache, roomy_source, roomy_y)) return false;
    for (std::size_t j = 0; j < C; ++j) {
      if (y(0, j) != full(t, j) || roomy_y(0, j) != full(t, j)) return false;
    }
  }
  ctattn::matrix<T, 1, C> y{};
  const auto before = cache;
  return !layer.step(row_of(x, 0), cache, source, y) && cache == before;  // full: refused, nothing changed
}

constexpr bool decoder_layers_decoding_match() {
  namespace fx = ctattn_fixtures::layers;
  using post_relu = ctattn::transformer_decoder_layer<float, 8, 2, 16, ctattn::relu, false>;
  using pre_gelu = ctattn::transformer_decoder_layer<float, 8, 2, 16, ctattn::gelu, true>;
  return decoder_layer_decoding_matches<post_relu>(CTATTN_DECODER_FIXTURE(fx::decoder_post_relu, f32)) &&
         decoder_layer_decoding_matches<pre_gelu>(CTATTN_DECODER_FIXTURE(fx::decoder_pre_gelu, f32));
}

}  // namespace ctattn_test::kv_cache_cases
