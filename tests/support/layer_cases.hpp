// Every layer of the layers tier against its PyTorch fixture (tests/fixtures/layers/layers.hpp), in float and
// double: one list of results, asserted at compile time (tests/static/layers_test.cpp), checked at run time with
// exact arithmetic (tests/runtime/layers_test.cpp) and with each SIMD backend's fast arithmetic
// (tests/backend/backend_test.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>

#include "fixtures/layers/layers.hpp"
#include "support/layer_check.hpp"

namespace ctattn_test::layer_cases {

struct result {
  std::string_view name;
  double error;  // the largest |ctattn - PyTorch| / (1 + |PyTorch|)
  double bound;
};

// Bounds, relative to 1 + |PyTorch's value|: float results as close to PyTorch's float32 as two float32
// computations of the same formula get (sums in another order, another erf or exp; the largest seen is 3e-7, with
// exact and with fast arithmetic alike), double results within a few ulps. LayerNorm's fixtures have a row far from
// zero where PyTorch's own results are off (float32 by 3e-3, float64 by 5e-13): ctattn is held to PyTorch's
// float64 output there, with room for that output's own error.
inline constexpr double float_bound = 2e-6;
inline constexpr double double_bound = 1e-13;
inline constexpr double layer_norm_double_bound = 1e-12;

template <typename T, typename Activation, bool NormFirst>
using encoder = ctattn::transformer_encoder_layer<T, 8, 2, 16, Activation, NormFirst>;
template <typename T, typename Activation, bool NormFirst>
using decoder = ctattn::transformer_decoder_layer<T, 8, 2, 16, Activation, NormFirst>;
template <typename T>
using unmasked_decoder = ctattn::transformer_decoder_layer<T, 8, 2, 16, ctattn::gelu, true, ctattn::no_mask_type>;
template <typename T>
using mlp = ctattn::sequential<ctattn::linear<T, 8, 16, ctattn::out_by_in, true>, ctattn::gelu_tanh,
                               ctattn::linear<T, 16, 3, ctattn::out_by_in, true>>;

// nn.TransformerDecoder of two pre-norm gelu layers: a model (ctattn::model) whose one member, a sequential of
// decoder layers under PyTorch's name "layers", runs with the memory the call gives (ctattn::with_memory).
template <typename T>
struct decoder_stack : ctattn::model<decoder_stack<T>> {
  BOOST_HANA_DEFINE_STRUCT(decoder_stack,
                           (ctattn::sequential<decoder<T, ctattn::gelu, true>, decoder<T, ctattn::gelu, true>>,
                            layers));
};

// A ViT's front end as timm writes it (tests/fixtures/layers: front_end_token, front_end_mean): a 2 x 2 patch
// embedding of a 4 x 4 image of 2 channels, a class token or none, learned positions held as nn.Parameter, a
// LayerNorm with eps 1e-6, and the class token's row or the mean of the tokens.
template <typename T>
struct front_end_token : ctattn::model<front_end_token<T>> {
  BOOST_HANA_DEFINE_STRUCT(front_end_token, (ctattn::patch_embedding_2d<T, 2, 4, 4, 2, 2, 8>, proj),
                           (ctattn::class_token<T, 8>, cls_token), (ctattn::position_parameter<T, 5, 8>, pos_embed),
                           (ctattn::layer_norm<T, 8>, norm), (ctattn::class_token_pool, pool));
};
template <typename T>
struct front_end_mean : ctattn::model<front_end_mean<T>> {
  BOOST_HANA_DEFINE_STRUCT(front_end_mean, (ctattn::patch_embedding_2d<T, 2, 4, 4, 2, 2, 8>, proj),
                           (ctattn::position_parameter<T, 6, 8>, pos_embed), (ctattn::layer_norm<T, 8>, norm),
                           (ctattn::mean_pool, pool));
};

// A front end's error against its fixture, its norm's eps set to the module's 1e-6 (ctattn::set_every_setting).
template <typename M, typename T, std::size_t P, std::size_t N, std::size_t R, std::size_t C, std::size_t CO>
constexpr double front_end_error(const T (&params)[P], const char* const (&names)[N], const std::size_t (&sizes)[N],
                                 const std::size_t (&ranks)[N], const T (&input)[R][C],
                                 const T (&output)[1][CO]) noexcept {
  M m{};
  if (ctattn::set_every_setting(m, "eps", 1e-6) != 1) return 1e300;
  if (!load_in_order(m, params, names, sizes, ranks)) return 1e300;
  return largest_error(ctattn::forward(m, ctattn::from_array(input)), output);
}

// The activation `A` on the fixture's 4 x 12 input against PyTorch's output.
template <typename A, typename T, std::size_t R, std::size_t C>
constexpr double activation_error(const T (&input)[R][C], const T (&output)[R][C]) noexcept {
  return largest_error(ctattn::forward(A{}, ctattn::from_array(input)), output);
}

// Rationale: the cases in three lists, each a constant evaluation of its own in the static tests, so that each stays
// within Clang's default budget of steps (1,048,576): norms, activations, feed-forward blocks and encoder layers;
// decoder layers; front ends. results() is the first two.
constexpr auto layer_results() noexcept {
  namespace fx = ctattn_fixtures::layers;
  namespace act = fx::activations;
  namespace ln = fx::layer_norm;
  namespace ln_plain = fx::layer_norm_plain;
  const double f = float_bound;
  const double d = double_bound;
  return std::array{
      result{"relu, float", activation_error<ctattn::relu>(act::input_f32, act::relu_f32), 0},
      result{"relu, double", activation_error<ctattn::relu>(act::input_f64, act::relu_f64), 0},
      result{"gelu, float", activation_error<ctattn::gelu>(act::input_f32, act::gelu_f32), f},
      result{"gelu, double", activation_error<ctattn::gelu>(act::input_f64, act::gelu_f64), d},
      result{"gelu tanh, float", activation_error<ctattn::gelu_tanh>(act::input_f32, act::gelu_tanh_f32), f},
      result{"gelu tanh, double", activation_error<ctattn::gelu_tanh>(act::input_f64, act::gelu_tanh_f64), d},
      result{"silu, float", activation_error<ctattn::silu>(act::input_f32, act::silu_f32), f},
      result{"silu, double", activation_error<ctattn::silu>(act::input_f64, act::silu_f64), d},
      result{"layer_norm, float",
             layer_error<ctattn::layer_norm<float, 8>>(ln::params_f32, ln::names, ln::sizes, ln::ranks, ln::input_f32,
                                                       ln::output_f64),
             f},
      result{"layer_norm, double", layer_error<ctattn::layer_norm<double, 8>>(CTATTN_LAYER_FIXTURE(ln, f64)),
             layer_norm_double_bound},
      result{"layer_norm without affine, float",
             ln_plain::parameter_tensors == 0
                 ? layer_error<ctattn::layer_norm<float, 8, false>>(ln_plain::input_f32, ln_plain::output_f64)
                 : 1e300,
             f},
      result{"layer_norm without affine, double",
             layer_error<ctattn::layer_norm<double, 8, false>>(ln_plain::input_f64, ln_plain::output_f64),
             layer_norm_double_bound},
      result{"rms_norm, float", layer_error<ctattn::rms_norm<float, 8>>(CTATTN_LAYER_FIXTURE(fx::rms_norm, f32)), f},
      result{"rms_norm, double", layer_error<ctattn::rms_norm<double, 8>>(CTATTN_LAYER_FIXTURE(fx::rms_norm, f64)), d},
      result{"feed_forward relu, float",
             layer_error<ctattn::feed_forward<float, 8, 16>>(CTATTN_LAYER_FIXTURE(fx::feed_forward_relu, f32)), f},
      result{"feed_forward relu, double",
             layer_error<ctattn::feed_forward<double, 8, 16>>(CTATTN_LAYER_FIXTURE(fx::feed_forward_relu, f64)), d},
      result{"feed_forward gelu, float",
             layer_error<ctattn::feed_forward<float, 8, 16, ctattn::gelu>>(
                 CTATTN_LAYER_FIXTURE(fx::feed_forward_gelu, f32)),
             f},
      result{"feed_forward gelu, double",
             layer_error<ctattn::feed_forward<double, 8, 16, ctattn::gelu>>(
                 CTATTN_LAYER_FIXTURE(fx::feed_forward_gelu, f64)),
             d},
      result{"gated_feed_forward, float",
             layer_error<ctattn::gated_feed_forward<float, 8, 12>>(CTATTN_LAYER_FIXTURE(fx::gated_feed_forward, f32)),
             f},
      result{"gated_feed_forward, double",
             layer_error<ctattn::gated_feed_forward<double, 8, 12>>(CTATTN_LAYER_FIXTURE(fx::gated_feed_forward, f64)),
             d},
      result{"sequential mlp, float", layer_error<mlp<float>>(CTATTN_LAYER_FIXTURE(fx::mlp, f32)), f},
      result{"sequential mlp, double", layer_error<mlp<double>>(CTATTN_LAYER_FIXTURE(fx::mlp, f64)), d},
      result{"encoder post-norm relu, float",
             layer_error<encoder<float, ctattn::relu, false>>(CTATTN_LAYER_FIXTURE(fx::encoder_post_relu, f32)), f},
      result{"encoder post-norm relu, double",
             layer_error<encoder<double, ctattn::relu, false>>(CTATTN_LAYER_FIXTURE(fx::encoder_post_relu, f64)), d},
      result{"encoder post-norm gelu, float",
             layer_error<encoder<float, ctattn::gelu, false>>(CTATTN_LAYER_FIXTURE(fx::encoder_post_gelu, f32)), f},
      result{"encoder post-norm gelu, double",
             layer_error<encoder<double, ctattn::gelu, false>>(CTATTN_LAYER_FIXTURE(fx::encoder_post_gelu, f64)), d},
      result{"encoder pre-norm relu, float",
             layer_error<encoder<float, ctattn::relu, true>>(CTATTN_LAYER_FIXTURE(fx::encoder_pre_relu, f32)), f},
      result{"encoder pre-norm relu, double",
             layer_error<encoder<double, ctattn::relu, true>>(CTATTN_LAYER_FIXTURE(fx::encoder_pre_relu, f64)), d},
      result{"encoder pre-norm gelu, float",
             layer_error<encoder<float, ctattn::gelu, true>>(CTATTN_LAYER_FIXTURE(fx::encoder_pre_gelu, f32)), f},
      result{"encoder pre-norm gelu, double",
             layer_error<encoder<double, ctattn::gelu, true>>(CTATTN_LAYER_FIXTURE(fx::encoder_pre_gelu, f64)), d},
  };
}

constexpr auto decoder_results() noexcept {
  namespace fx = ctattn_fixtures::layers;
  const double f = float_bound;
  const double d = double_bound;
  return std::array{
      result{"decoder post-norm relu, float",
             decoder_error<decoder<float, ctattn::relu, false>>(CTATTN_DECODER_FIXTURE(fx::decoder_post_relu, f32)), f},
      result{"decoder post-norm relu, double",
             decoder_error<decoder<double, ctattn::relu, false>>(CTATTN_DECODER_FIXTURE(fx::decoder_post_relu, f64)),
             d},
      result{"decoder post-norm gelu, float",
             decoder_error<decoder<float, ctattn::gelu, false>>(CTATTN_DECODER_FIXTURE(fx::decoder_post_gelu, f32)), f},
      result{"decoder post-norm gelu, double",
             decoder_error<decoder<double, ctattn::gelu, false>>(CTATTN_DECODER_FIXTURE(fx::decoder_post_gelu, f64)),
             d},
      result{"decoder pre-norm relu, float",
             decoder_error<decoder<float, ctattn::relu, true>>(CTATTN_DECODER_FIXTURE(fx::decoder_pre_relu, f32)), f},
      result{"decoder pre-norm relu, double",
             decoder_error<decoder<double, ctattn::relu, true>>(CTATTN_DECODER_FIXTURE(fx::decoder_pre_relu, f64)), d},
      result{"decoder pre-norm gelu, float",
             decoder_error<decoder<float, ctattn::gelu, true>>(CTATTN_DECODER_FIXTURE(fx::decoder_pre_gelu, f32)), f},
      result{"decoder pre-norm gelu, double",
             decoder_error<decoder<double, ctattn::gelu, true>>(CTATTN_DECODER_FIXTURE(fx::decoder_pre_gelu, f64)), d},
      result{"two decoder layers in sequential (nn.TransformerDecoder), float",
             decoder_error<decoder_stack<float>>(CTATTN_DECODER_FIXTURE(fx::decoder_stack, f32)), f},
      result{"two decoder layers in sequential (nn.TransformerDecoder), double",
             decoder_error<decoder_stack<double>>(CTATTN_DECODER_FIXTURE(fx::decoder_stack, f64)), d},
      // PyTorch's default: no tgt_mask (Mask = ctattn::no_mask_type).
      result{"decoder pre-norm gelu without a target mask, float",
             decoder_error<unmasked_decoder<float>>(CTATTN_DECODER_FIXTURE(fx::decoder_unmasked, f32)), f},
      result{"decoder pre-norm gelu without a target mask, double",
             decoder_error<unmasked_decoder<double>>(CTATTN_DECODER_FIXTURE(fx::decoder_unmasked, f64)), d},
      // PyTorch's tgt_key_padding_mask and memory_key_padding_mask: by length for the target, by flags for the
      // memory.
      result{"decoder post-norm relu with target and memory masks, float",
             decoder_error<decoder<float, ctattn::relu, false>>(
                 CTATTN_DECODER_FIXTURE(fx::decoder_masked, f32), ctattn::tgt_mask(ctattn::key_padding_length{3}),
                 ctattn::memory_mask(ctattn::key_padding_flags<7>{{true, true, true, true, false, false, false}})),
             f},
      result{"decoder post-norm relu with target and memory masks, double",
             decoder_error<decoder<double, ctattn::relu, false>>(CTATTN_DECODER_FIXTURE(fx::decoder_masked, f64),
                                                                 ctattn::memory_mask(ctattn::key_padding_length{4}),
                                                                 ctattn::tgt_mask(ctattn::key_padding_length{3})),
             d},
  };
}

// The layers and the decoder layers, in one list (computed where it is called: at run time in the run-time tests).
constexpr auto results() noexcept {
  const auto layers = layer_results();
  const auto decoders = decoder_results();
  std::array<result, std::tuple_size_v<decltype(layers)> + std::tuple_size_v<decltype(decoders)>> all{};
  for (std::size_t i = 0; i < layers.size(); ++i) all[i] = layers[i];
  for (std::size_t i = 0; i < decoders.size(); ++i) all[layers.size() + i] = decoders[i];
  return all;
}

// Front ends and pooling (ctattn/layers/patch.hpp, embedding.hpp, pool.hpp), inputs in ctattn's layout.
constexpr auto front_end_results() noexcept {
  namespace fx = ctattn_fixtures::layers;
  const double f = float_bound;
  const double d = double_bound;
  return std::array{
      result{"patch_embedding_1d (nn.Conv1d, kernel 4, stride 4), float",
             layer_error<ctattn::patch_embedding_1d<float, 3, 4, 8>>(CTATTN_LAYER_FIXTURE(fx::patch_1d, f32)), f},
      result{"patch_embedding_1d (nn.Conv1d, kernel 4, stride 4), double",
             layer_error<ctattn::patch_embedding_1d<double, 3, 4, 8>>(CTATTN_LAYER_FIXTURE(fx::patch_1d, f64)), d},
      result{"patch_embedding_1d of frames (kernel 1, no bias), float",
             layer_error<ctattn::patch_embedding_1d<float, 5, 1, 8, false>>(
                 CTATTN_LAYER_FIXTURE(fx::patch_1d_frames, f32)),
             f},
      result{"patch_embedding_1d of frames (kernel 1, no bias), double",
             layer_error<ctattn::patch_embedding_1d<double, 5, 1, 8, false>>(
                 CTATTN_LAYER_FIXTURE(fx::patch_1d_frames, f64)),
             d},
      result{"patch_embedding_2d (nn.Conv2d, 2 x 3 patches of a 4 x 6 image), float",
             layer_error<ctattn::patch_embedding_2d<float, 3, 4, 6, 2, 3, 8>>(CTATTN_LAYER_FIXTURE(fx::patch_2d, f32)),
             f},
      result{"patch_embedding_2d (nn.Conv2d, 2 x 3 patches of a 4 x 6 image), double",
             layer_error<ctattn::patch_embedding_2d<double, 3, 4, 6, 2, 3, 8>>(CTATTN_LAYER_FIXTURE(fx::patch_2d, f64)),
             d},
      result{"front end: patches, class token, positions, norm, class token pool, float",
             front_end_error<front_end_token<float>>(CTATTN_LAYER_FIXTURE(fx::front_end_token, f32)), f},
      result{"front end: patches, class token, positions, norm, class token pool, double",
             front_end_error<front_end_token<double>>(CTATTN_LAYER_FIXTURE(fx::front_end_token, f64)), d},
      result{"front end: patches, positions sliced, norm, mean pool, float",
             front_end_error<front_end_mean<float>>(CTATTN_LAYER_FIXTURE(fx::front_end_mean, f32)), f},
      result{"front end: patches, positions sliced, norm, mean pool, double",
             front_end_error<front_end_mean<double>>(CTATTN_LAYER_FIXTURE(fx::front_end_mean, f64)), d},
  };
}

// The index of the first result beyond its bound, or the number of results when all hold.
template <std::size_t N>
constexpr std::size_t first_failure(const std::array<result, N>& all) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    if (!(all[i].error <= all[i].bound)) return i;
  }
  return N;
}

}  // namespace ctattn_test::layer_cases
