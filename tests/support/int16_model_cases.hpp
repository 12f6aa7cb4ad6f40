// 16x8 models against the Python reference (tests/fixtures/quantized/int16.hpp, namespaces front_end,
// encoder_layer_pre_norm and encoder_layer_post_norm): a class token and learned positions in 16x8, bit for bit;
// torch's nn.TransformerEncoderLayer loaded through the parameter walk and quantized by ctattn::quantize with
// `activations = int16` from the reference's ranges, its int16 output against the reference's, bit for bit; and a
// model that mixes the widths, whose conversions ctattn::quantize puts in. Asserted at compile time
// (tests/static/int16_model_test.cpp), checked at run time (tests/runtime/int16_test.cpp) and with each backend
// (tests/backend/int8_backend_test.cpp), where `Read` hides each input from the optimizer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include <ctattn/layers.hpp>
#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/model.hpp>

#include "fixtures/quantized/int16.hpp"
#include "support/case_list.hpp"
#include "support/layer_check.hpp"

namespace ctattn_test::int16_model_cases {

namespace fx = ctattn_fixtures::int16;

inline constexpr ctattn::quantize_options in_16x8{.activations = ctattn::activation_format::int16};

// The arrays of one fixture namespace, under the names every runner reads.
// Rationale: a macro, since a namespace cannot be a template argument.
#define CTATTN_TEST_ENCODER16_FIXTURE(fixture)                         \
  struct ns {                                                          \
    static constexpr const auto& params = fixture::params;             \
    static constexpr const auto& names = fixture::names;               \
    static constexpr const auto& sizes = fixture::sizes;               \
    static constexpr const auto& ranks = fixture::ranks;               \
    static constexpr const auto& source = fixture::source;             \
    static constexpr const auto& points = fixture::points;             \
    static constexpr const auto& lo = fixture::lo;                     \
    static constexpr const auto& hi = fixture::hi;                     \
    static constexpr const auto& output = fixture::output;             \
    static constexpr const auto& float_output = fixture::float_output; \
  }

// One reference case: the layer it was built as, and its arrays.
template <bool NormFirst>
struct reference;
template <>
struct reference<true> {
  using activation = ctattn::gelu;
  CTATTN_TEST_ENCODER16_FIXTURE(fx::encoder_layer_pre_norm);
};
template <>
struct reference<false> {
  using activation = ctattn::relu;
  CTATTN_TEST_ENCODER16_FIXTURE(fx::encoder_layer_post_norm);
};
#undef CTATTN_TEST_ENCODER16_FIXTURE

template <bool NormFirst>
using encoder = ctattn::transformer_encoder_layer<float, 16, 4, 32, typename reference<NormFirst>::activation,
                                                  NormFirst, ctattn::causal_mask>;

/// The model the points are named under: the encoder layer as the member `block`.
template <bool NormFirst>
struct encoder_model : ctattn::model<encoder_model<NormFirst>> {
  BOOST_HANA_DEFINE_STRUCT(encoder_model, (encoder<NormFirst>, block));
};

template <bool NormFirst>
constexpr encoder_model<NormFirst> loaded_model(bool& ok) noexcept {
  using r = typename reference<NormFirst>::ns;
  encoder_model<NormFirst> m{};
  ok = load_in_order(m.block, r::params, r::names, r::sizes, r::ranks);
  return m;
}

// The reference's ranges as a generated header holds them.
template <bool NormFirst>
constexpr auto table_of() noexcept {
  using r = typename reference<NormFirst>::ns;
  std::array<ctattn::named_range, std::size(r::points)> t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = {r::points[i], {r::lo[i], r::hi[i]}};
  return t;
}
template <bool NormFirst>
inline constexpr auto table = table_of<NormFirst>();

/// The 16x8 layer ctattn::quantize makes from the reference's ranges, on the source quantized with its range:
/// outputs that differ from the reference's, and those farther than 64 int16 output steps from its float64 output
/// (about a fifth of an int8 step); a model that does not load, or a layer that is not 16x8, counts as every output
/// wrong.
template <bool NormFirst, typename Read>
constexpr std::size_t encoder_mismatches(Read read) noexcept {
  using r = typename reference<NormFirst>::ns;
  bool ok = false;
  const auto m = loaded_model<NormFirst>(ok);
  if (!ok) return 6 * 16;
  const auto q = ctattn::quantize<table<NormFirst>, in_16x8>(read(m));
  using model16 = std::remove_cvref_t<decltype(q)>;
  using layer = typename model16::first_layer;
  if (!layer::int16 || layer::quantizations.softmax != ctattn::softmax_method::tflite) return 6 * 16;
  const auto x = ctattn::quantize<layer::input_quantization, std::int16_t>(read(ctattn::from_array(r::source)));
  const auto y = q.forward(x);
  static_assert(ctattn::Quantized16Matrix<decltype(y)>);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t c = 0; c < 16; ++c) {
      bad += std::int32_t{y(i, c)} == r::output[i][c] ? 0u : 1u;
      const double d = y.real(i, c) - r::float_output[i][c];
      bad += (d < 0 ? -d : d) <= 64.0 * model16::output_quantization.scale() ? 0u : 1u;
    }
  }
  return bad;
}

// A model that mixes the widths: an int8 linear layer (its override), the 16x8 encoder layer, a 16x8 LayerNorm, an
// int8 head (its override). ctattn::quantize puts a conversion before the encoder layer and one before the head.
template <bool NormFirst>
struct mixed_model : ctattn::model<mixed_model<NormFirst>> {
  BOOST_HANA_DEFINE_STRUCT(mixed_model, (ctattn::linear<float, 16, 16, ctattn::out_by_in, true>, in),
                           (encoder<NormFirst>, block), (ctattn::layer_norm<float, 16>, norm),
                           (ctattn::linear<float, 16, 5, ctattn::out_by_in, true>, head));
};
inline constexpr ctattn::layer_weights int8_ends[] = {{"in"}, {"head"}};
inline constexpr ctattn::quantize_options mixed_16x8{.activations = ctattn::activation_format::int16,
                                                     .overrides = int8_ends};
template <bool NormFirst>
inline constexpr auto mixed_recorded = [] {
  ctattn::activation_ranges<24> ranges{};
  (void)ctattn::record_ranges(numbered<mixed_model<NormFirst>>(), ctattn::from_array(reference<NormFirst>::ns::source),
                              ranges);
  return ranges;
}();
template <bool NormFirst>
inline constexpr auto mixed_table = mixed_recorded<NormFirst>.table();

/// The mixed model's layers and their widths, and its output against the layers run by hand with the conversions
/// TFLite's QUANTIZE computes (`ctattn::quantize<Q, std::int16_t>`, `ctattn::quantize<Q>`), bit for bit; and
/// against the float model, within 3 int8 steps of the head. Counts the mismatches.
template <bool NormFirst, typename Read>
constexpr std::size_t mixed_mismatches(Read read) noexcept {
  const auto m = read(numbered<mixed_model<NormFirst>>());
  const auto q = ctattn::quantize<mixed_table<NormFirst>, mixed_16x8>(m);
  using model = std::remove_cvref_t<decltype(q)>;
  using first = std::remove_cvref_t<decltype(q.template layer<0>())>;
  using to16 = std::remove_cvref_t<decltype(q.template layer<1>())>;
  using block = std::remove_cvref_t<decltype(q.template layer<2>())>;
  using norm = std::remove_cvref_t<decltype(q.template layer<3>())>;
  using to8 = std::remove_cvref_t<decltype(q.template layer<4>())>;
  using head = std::remove_cvref_t<decltype(q.template layer<5>())>;
  std::size_t bad = 0;
  bad += std::is_same_v<to16, ctattn::qconversion<first::output_quantization, block::input_quantization, std::int16_t>>
             ? 0u
             : 1u;
  bad += block::int16 && norm::int16 && !first::int16 ? 0u : 1u;
  bad += std::is_same_v<to8, ctattn::qconversion<norm::output_quantization, head::input_quantization, std::int8_t>>
             ? 0u
             : 1u;
  const auto x = read(ctattn::from_array(reference<NormFirst>::ns::source));
  const auto x_q = ctattn::quantize<first::input_quantization>(x);
  const auto h8 = q.template layer<0>().forward(x_q);
  const auto h16 = ctattn::quantize<block::input_quantization, std::int16_t>(h8);
  const auto y16 = q.template layer<3>().forward(q.template layer<2>().forward(h16));
  const auto by_hand = q.template layer<5>().forward(ctattn::quantize<head::input_quantization>(y16));
  bad += ctattn::QuantizedMatrix<decltype(by_hand)> && q.forward(x_q) == by_hand ? 0u : 1u;
  bad += ctattn::int8_error(q, m, x) <= 3.0 * model::output_quantization.scale() ? 0u : 1u;
  return bad;
}

// The encoder layer written as residual connections around an attention layer and a feed-forward block, with its
// LayerNorms: pre-norm x + attn(norm1(x)), then + ff(norm2(.)); post-norm norm1(x + attn(x)), then norm2(. + ff(.)).
template <bool NormFirst>
struct residual_model;
template <bool NormFirst>
using attention_of = decltype(encoder<NormFirst>{}.self_attn);
template <bool NormFirst>
using feed_forward_of = decltype(encoder<NormFirst>{}.ff);
using norm16 = ctattn::layer_norm<float, 16>;
template <>
struct residual_model<true> : ctattn::model<residual_model<true>> {
  BOOST_HANA_DEFINE_STRUCT(residual_model, (ctattn::residual<ctattn::sequential<norm16, attention_of<true>>>, attn),
                           (ctattn::residual<ctattn::sequential<norm16, feed_forward_of<true>>>, ff));
};
template <>
struct residual_model<false> : ctattn::model<residual_model<false>> {
  BOOST_HANA_DEFINE_STRUCT(residual_model, (ctattn::residual<attention_of<false>>, attn), (norm16, norm1),
                           (ctattn::residual<feed_forward_of<false>>, ff), (norm16, norm2));
};
template <bool NormFirst>
constexpr residual_model<NormFirst> residual_from(const encoder<NormFirst>& e) noexcept {
  residual_model<NormFirst> m{};
  if constexpr (NormFirst) {
    boost::hana::at_c<0>(m.attn.inner.layers) = e.norm1;
    boost::hana::at_c<1>(m.attn.inner.layers) = e.self_attn;
    boost::hana::at_c<0>(m.ff.inner.layers) = e.norm2;
    boost::hana::at_c<1>(m.ff.inner.layers) = e.ff;
  } else {
    m.attn.inner = e.self_attn;
    m.norm1 = e.norm1;
    m.ff.inner = e.ff;
    m.norm2 = e.norm2;
  }
  return m;
}

// Each point of the residual model and the encoder layer's point that holds the same activation.
struct renamed {
  std::string_view point, encoder_point;
};
inline constexpr renamed pre_norm_points[] = {
    {"input", "input"},
    {"attn.inner.0", "block.norm1"},
    {"attn.inner.1.query", "block.query"},
    {"attn.inner.1.key", "block.key"},
    {"attn.inner.1.value", "block.value"},
    {"attn.inner.1.scores", "block.scores"},
    {"attn.inner.1.context", "block.context"},
    {"attn.inner.1", "block.attention"},
    {"attn.inner", "block.attention"},
    {"attn", "block.sum1"},
    {"ff.inner.0", "block.norm2"},
    {"ff.inner.1.hidden", "block.hidden"},
    {"ff.inner.1.activation", "block.activation"},
    {"ff.inner.1", "block.feed_forward"},
    {"ff.inner", "block.feed_forward"},
    {"ff", "block"},
    {"output", "block"},
};
inline constexpr renamed post_norm_points[] = {
    {"input", "input"},
    {"attn.inner.query", "block.query"},
    {"attn.inner.key", "block.key"},
    {"attn.inner.value", "block.value"},
    {"attn.inner.scores", "block.scores"},
    {"attn.inner.context", "block.context"},
    {"attn.inner", "block.attention"},
    {"attn", "block.sum1"},
    {"norm1", "block.norm1"},
    {"ff.inner.hidden", "block.hidden"},
    {"ff.inner.activation", "block.activation"},
    {"ff.inner", "block.feed_forward"},
    {"ff", "block.sum2"},
    {"norm2", "block"},
    {"output", "block"},
};
// The reference's ranges under the residual model's names.
template <bool NormFirst>
inline constexpr auto residual_table = [] {
  using r = typename reference<NormFirst>::ns;
  constexpr const auto& names = []() -> const auto& {
    if constexpr (NormFirst) {
      return pre_norm_points;
    } else {
      return post_norm_points;
    }
  }();
  std::array<ctattn::named_range, std::size(names)> t{};
  for (std::size_t i = 0; i < t.size(); ++i) {
    t[i].name = names[i].point;
    for (std::size_t j = 0; j < std::size(r::points); ++j) {
      if (names[i].encoder_point == r::points[j]) t[i].range = {r::lo[j], r::hi[j]};
    }
  }
  return t;
}();

// The number of layers of a qchain.
template <typename Chain>
inline constexpr std::size_t layer_count = 0;
template <typename... Layers>
inline constexpr std::size_t layer_count<ctattn::qchain<Layers...>> = sizeof...(Layers);

/// The encoder layer as residual connections (`residual_model`) quantized by ctattn::quantize in 16x8 from the
/// reference's ranges under their names: every layer takes its 16x8 form (the residual connections by the int16 ADD,
/// the attention layer with TFLite's int16 softmax, the feed-forward block of q16linears), no conversion is put in,
/// and its int16 output is the reference's bit for bit; in int8, its output is the int8 encoder layer's. Counts the
/// outputs that differ (every output when a layer is not 16x8, or when the int8 outputs differ).
template <bool NormFirst, typename Read>
constexpr std::size_t residual_mismatches(Read read) noexcept {
  using r = typename reference<NormFirst>::ns;
  bool ok = false;
  const auto m = residual_from<NormFirst>(loaded_model<NormFirst>(ok).block);
  if (!ok) return 6 * 16;
  const auto q = ctattn::quantize<residual_table<NormFirst>, in_16x8>(read(m));
  using model16 = std::remove_cvref_t<decltype(q)>;
  using attn = std::remove_cvref_t<decltype(q.template layer<0>())>;
  using ff = std::remove_cvref_t<decltype(q.template layer<NormFirst ? 1 : 2>())>;
  constexpr bool sixteen = attn::int16 && ff::int16 && model16::int16 && layer_count<model16> == (NormFirst ? 2 : 4);
  if (!sixteen) return 6 * 16;
  const auto x = ctattn::quantize<model16::input_quantization, std::int16_t>(read(ctattn::from_array(r::source)));
  const auto y = q.forward(x);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t c = 0; c < 16; ++c) bad += std::int32_t{y(i, c)} == r::output[i][c] ? 0u : 1u;
  }
  // In int8, the same model from the same ranges computes the int8 encoder layer's output bit for bit.
  const auto q8 = ctattn::quantize<residual_table<NormFirst>>(read(m));
  const auto e8 = ctattn::quantize<table<NormFirst>>(read(loaded_model<NormFirst>(ok)));
  const auto x8 = ctattn::quantize<decltype(e8)::input_quantization>(read(ctattn::from_array(r::source)));
  bad += ctattn::QuantizedMatrix<decltype(q8.forward(x8))> && q8.forward(x8) == e8.forward(x8) ? 0u : 6u * 16u;
  return bad;
}

// The 16x8 front end's quantizations, the reference's float32 scales.
inline constexpr ctattn::quantization q_front_x{fx::front_end::scales[0]}, q_front_cls{fx::front_end::scales[1]},
    q_front_pos{fx::front_end::scales[2]}, q_front_out{fx::front_end::scales[3]};

/// A class token before int16 rows and learned positions added, in 16x8 (`quantize_class_token<..., std::int16_t>`,
/// `quantize_position_embedding<..., std::int16_t>`), against the reference's rows after each, bit for bit: the
/// elements that differ.
template <typename Read>
constexpr std::size_t front_end_mismatches(Read read) noexcept {
  namespace r = fx::front_end;
  ctattn::class_token<float, 8> token{};
  token.token = ctattn::from_array(r::token);
  ctattn::position_parameter<float, 6, 8> positions{};
  positions.weight = ctattn::from_array(r::positions);
  const auto token16 = ctattn::quantize_class_token<q_front_x, q_front_cls, std::int16_t>(read(token));
  const auto positions16 = ctattn::quantize_position_embedding<q_front_pos, q_front_out, std::int16_t>(read(positions));
  const auto x16 = ctattn::quantize<q_front_x, std::int16_t>(read(ctattn::from_array(r::x)));
  const auto with_token = token16.forward(x16);
  const auto y = positions16.forward(with_token);
  static_assert(ctattn::Quantized16Matrix<decltype(y)> && decltype(y)::rows == 5);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t c = 0; c < 8; ++c) {
      bad += std::int32_t{with_token(i, c)} == r::with_token[i][c] ? 0u : 1u;
      bad += std::int32_t{y(i, c)} == r::output[i][c] ? 0u : 1u;
    }
  }
  return bad;
}

// Every case of this header, once (tests/support/case_list.hpp).
inline constexpr unsigned hosted = in_constant_evaluation | at_run_time | with_each_backend;
inline constexpr auto every_case = std::tuple{
    test_case{"16x8 class token and learned positions", hosted, [](auto read) { return front_end_mismatches(read); }},
    test_case{"16x8 pre-norm encoder layer", hosted, [](auto read) { return encoder_mismatches<true>(read); }},
    test_case{"16x8 post-norm encoder layer", hosted, [](auto read) { return encoder_mismatches<false>(read); }},
    test_case{"16x8 residual connections, pre-norm", hosted, [](auto read) { return residual_mismatches<true>(read); }},
    test_case{"16x8 residual connections, post-norm", hosted,
              [](auto read) { return residual_mismatches<false>(read); }},
    test_case{"a model of int8 and 16x8 layers, pre-norm", hosted,
              [](auto read) { return mixed_mismatches<true>(read); }},
    test_case{"a model of int8 and 16x8 layers, post-norm", hosted,
              [](auto read) { return mixed_mismatches<false>(read); }},
};

}  // namespace ctattn_test::int16_model_cases
