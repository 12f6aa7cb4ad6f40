// Int8 decoder layers against the Python reference (tests/fixtures/quantized/quantized.hpp, namespaces
// decoder_layer_post_norm, decoder_layer_pre_norm, ...): torch's nn.TransformerDecoderLayer loaded through the
// parameter walk, the ranges ctattn::record_ranges records against the reference's float64 ones, and the int8 layer
// ctattn::quantize makes from the reference's ranges against the reference's int8 output, bit for bit. Asserted at
// compile time (tests/static/int8_decoder_test.cpp), checked at run time (tests/runtime/quantized_test.cpp) and
// with each int8 backend (tests/backend/int8_backend_test.cpp), where `Read` hides each input from the optimizer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ctattn/layers.hpp>
#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "fixtures/quantized/quantized.hpp"
#include "support/case_list.hpp"
#include "support/layer_check.hpp"

namespace ctattn_test::int8_decoder_cases {

namespace fx = ctattn_fixtures::quantized;

// The reference's cases: post-norm ReLU and pre-norm GELU with the causal tgt_mask, pre-norm GELU without one
// (PyTorch's default; ctattn's Mask = ctattn::no_mask_type), and pre-norm GELU quantized with TFLite's softmax.
enum case_kind : int { post_norm = 0, pre_norm = 1, pre_norm_unmasked = 2, pre_norm_tflite_softmax = 3 };

// The arrays of one fixture namespace of tests/fixtures/quantized, under the names every runner reads.
// Rationale: a macro, since a namespace cannot be a template argument; the three cases differ only in it and in the
// layer they were built as.
#define CTATTN_TEST_DECODER_FIXTURE(ns)             \
  static constexpr const auto& params = ns::params; \
  static constexpr const auto& names = ns::names;   \
  static constexpr const auto& sizes = ns::sizes;   \
  static constexpr const auto& ranks = ns::ranks;   \
  static constexpr const auto& target = ns::target; \
  static constexpr const auto& memory = ns::memory; \
  static constexpr const auto& points = ns::points; \
  static constexpr const auto& lo = ns::lo;         \
  static constexpr const auto& hi = ns::hi;         \
  static constexpr const auto& output = ns::output; \
  static constexpr const auto& float_output = ns::float_output

// One reference case: the layer it was built as, and its arrays.
template <int Case>
struct reference;
template <>
struct reference<post_norm> {
  using activation = ctattn::relu;
  static constexpr bool norm_first = false;
  using mask = ctattn::causal_mask;
  CTATTN_TEST_DECODER_FIXTURE(fx::decoder_layer_post_norm);
};
template <>
struct reference<pre_norm> {
  using activation = ctattn::gelu;
  static constexpr bool norm_first = true;
  using mask = ctattn::causal_mask;
  CTATTN_TEST_DECODER_FIXTURE(fx::decoder_layer_pre_norm);
};
template <>
struct reference<pre_norm_unmasked> {
  using activation = ctattn::gelu;
  static constexpr bool norm_first = true;
  using mask = ctattn::no_mask_type;
  CTATTN_TEST_DECODER_FIXTURE(fx::decoder_layer_unmasked);
};
// The pre-norm case's layer and inputs, quantized with TFLite's softmax: its own int8 output.
template <>
struct reference<pre_norm_tflite_softmax> : reference<pre_norm> {
  static constexpr ctattn::quantize_options options{.softmax = ctattn::softmax_method::tflite};
  static constexpr const auto& output = fx::decoder_layer_tflite_softmax::output;
};
#undef CTATTN_TEST_DECODER_FIXTURE

// The options a case quantizes with: its reference's, else the defaults.
template <int Case>
constexpr ctattn::quantize_options options_of() noexcept {
  if constexpr (requires { reference<Case>::options; }) {
    return reference<Case>::options;
  } else {
    return {};
  }
}

template <int Case>
using decoder = ctattn::transformer_decoder_layer<float, 16, 4, 32, typename reference<Case>::activation,
                                                  reference<Case>::norm_first, typename reference<Case>::mask>;

/// The model the points are named under: the decoder layer as the member `block`.
template <int Case>
struct decoder_model : ctattn::model<decoder_model<Case>> {
  BOOST_HANA_DEFINE_STRUCT(decoder_model, (decoder<Case>, block));
};

template <int Case>
constexpr decoder_model<Case> loaded_model(bool& ok) noexcept {
  using r = reference<Case>;
  decoder_model<Case> m{};
  ok = load_in_order(m.block, r::params, r::names, r::sizes, r::ranks);
  return m;
}

// The reference's ranges as a generated header holds them.
template <int Case>
constexpr auto table_of() noexcept {
  using r = reference<Case>;
  std::array<ctattn::named_range, std::size(r::points)> t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = {r::points[i], {r::lo[i], r::hi[i]}};
  return t;
}
template <int Case>
inline constexpr auto table = table_of<Case>();

template <typename Q, std::size_t R, std::size_t C>
constexpr std::size_t differing(const Q& q, const std::int32_t (&want)[R][C]) noexcept {
  static_assert(Q::rows == R && Q::cols == C);
  std::uint32_t bad = 0;  // 32 bits, as in quantized_cases.hpp
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) bad += std::int32_t{q(r, c)} == want[r][c] ? 0u : 1u;
  }
  return bad;
}

/// The int8 layer ctattn::quantize makes from the reference's ranges, on the target and memory quantized with
/// their ranges: outputs that differ from the reference's, and those farther than 3 output steps from its float64
/// output; a model that does not load counts as every output wrong.
template <int Case, typename Read>
constexpr std::size_t decoder_mismatches(Read read) noexcept {
  bool ok = false;
  const auto m = loaded_model<Case>(ok);
  if (!ok) return 5 * 16;
  const auto q = ctattn::quantize<table<Case>, options_of<Case>()>(read(m));
  static_assert(decltype(q)::first_layer::quantizations.softmax == options_of<Case>().softmax);
  using int8_model = std::remove_cvref_t<decltype(q)>;
  constexpr ctattn::quantization in = int8_model::first_layer::input_quantization;
  constexpr ctattn::quantization memory = int8_model::memory_quantization;
  const auto& target = reference<Case>::target;
  const auto& source = reference<Case>::memory;
  const auto& want = reference<Case>::output;
  const auto& real = reference<Case>::float_output;
  const auto x_q = ctattn::quantize<in>(read(ctattn::from_array(target)));
  const auto memory_q = ctattn::quantize<memory>(read(ctattn::from_array(source)));
  const auto y = q.forward(x_q, ctattn::with_memory(memory_q));
  std::size_t bad = differing(y, want);
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t c = 0; c < 16; ++c) {
      const double d = y.real(i, c) - real[i][c];
      bad += (d < 0 ? -d : d) <= 3.0 * int8_model::output_quantization.scale() ? 0u : 1u;
    }
  }
  return bad;
}

/// The ranges ctattn::record_ranges records (float32) against the reference's (float64): every point the
/// reference names, recorded, with bounds within 1e-4 of its span; and no point the reference lacks (but the
/// model's own `output`).
template <int Case, typename Read>
constexpr std::size_t recorded_range_mismatches(Read read) noexcept {
  bool ok = false;
  const auto m = loaded_model<Case>(ok);
  if (!ok) return 1000;
  ctattn::activation_ranges<40> ranges{};
  const auto memory = read(ctattn::from_array(reference<Case>::memory));
  (void)ctattn::record_ranges(m, read(ctattn::from_array(reference<Case>::target)), ranges,
                              ctattn::with_memory(memory));
  std::size_t bad = ranges.size() == table<Case>.size() + 1 ? 0u : 1u;
  for (const ctattn::named_range& want : table<Case>) {
    const ctattn::value_range* got = ranges.find(want.name);
    if (got == nullptr) {
      ++bad;
      continue;
    }
    const double span = want.range.hi - want.range.lo;
    const double lo = got->lo - want.range.lo;
    const double hi = got->hi - want.range.hi;
    bad += (lo < 0 ? -lo : lo) <= 1e-4 * span && (hi < 0 ? -hi : hi) <= 1e-4 * span ? 0u : 1u;
  }
  return bad;
}

// Row t of an int8 matrix, as a one-row int8 matrix.
template <typename M>
constexpr auto row_of(const M& m, std::size_t t) noexcept {
  ctattn::basic_qmatrix<std::size_t{1}, M::column_extent, M::quant> row{};
  for (std::size_t c = 0; c < M::cols; ++c) row.elements[0][c] = m.elements[t][c];
  return row;
}

// Elements of `row` that differ from row t of `full`.
template <typename Row, typename M>
constexpr std::size_t row_differs(const Row& row, const M& full, std::size_t t) noexcept {
  std::size_t bad = 0;
  for (std::size_t c = 0; c < M::cols; ++c) bad += row.elements[0][c] == full.elements[t][c] ? 0u : 1u;
  return bad;
}

/// Decoding the reference's int8 decoder layer token by token (`prepare`, then `step` with a cache of 5): each
/// token's row against the layer's `forward` over the whole target, bit for bit; then a sixth step on the full
/// cache, which must return false and change neither the cache nor the output row. Counts the differences.
template <int Case, typename Read>
constexpr std::size_t decoder_step_mismatches(Read read) noexcept {
  bool ok = false;
  const auto m = loaded_model<Case>(ok);
  if (!ok) return 1000;
  const auto q = ctattn::quantize<table<Case>, options_of<Case>()>(m);
  const auto layer = read(q.template layer<0>());
  using layer_type = std::remove_cvref_t<decltype(layer)>;
  const auto x_q = ctattn::quantize<layer_type::input_quantization>(read(ctattn::from_array(reference<Case>::target)));
  const auto memory_q =
      ctattn::quantize<layer_type::memory_quantization>(read(ctattn::from_array(reference<Case>::memory)));
  const auto full = layer.forward(x_q, memory_q);
  typename layer_type::template cache_type<5> cache{};
  typename layer_type::template source_type<8> source{};
  layer.prepare(memory_q, source);
  std::size_t bad = source.length == 7 ? 0u : 1u;
  typename layer_type::output_row y{};
  for (std::size_t t = 0; t < 5; ++t) {
    bad += layer.step(row_of(x_q, t), cache, source, y) ? 0u : 1u;
    bad += row_differs(y, full, t);
  }
  const auto before = cache;
  const auto last = y;
  bad += layer.step(row_of(x_q, 0), cache, source, y) ? 1u : 0u;
  bad += cache == before && y == last ? 0u : 1u;
  return bad;
}

// A causal encoder layer with numbered weights (8 wide, 2 heads), calibrated in a constant expression on 4 rows.
template <bool NormFirst>
using causal_encoder = ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, NormFirst, ctattn::causal_mask>;
template <bool NormFirst>
struct encoder_model : ctattn::model<encoder_model<NormFirst>> {
  BOOST_HANA_DEFINE_STRUCT(encoder_model, (causal_encoder<NormFirst>, block));
};
inline constexpr float encoder_rows[4][8] = {{0.5f, -1, 2, 0, 1, -0.25f, 3, 1},
                                             {1, 1, -1, 2, 0, 0.5f, -2, 4},
                                             {-3, 0.75f, 1, 1, -1, 2, 0.5f, 0},
                                             {2, -0.5f, 0, 1.5f, -2, 1, 1, -1}};
template <bool NormFirst>
inline constexpr auto encoder_recorded = [] {
  ctattn::activation_ranges<24> r{};
  (void)ctattn::record_ranges(numbered<encoder_model<NormFirst>>(), ctattn::from_array(encoder_rows), r);
  return r;
}();
template <bool NormFirst>
inline constexpr auto encoder_table = encoder_recorded<NormFirst>.table();

/// Decoding with an int8 causal encoder layer token by token (a cache of 4): each row against `forward` over the
/// whole sequence, bit for bit; then a step on the full cache, which must return false and change nothing.
template <bool NormFirst, typename Read>
constexpr std::size_t encoder_step_mismatches(Read read) noexcept {
  const auto q = ctattn::quantize<encoder_table<NormFirst>>(numbered<encoder_model<NormFirst>>());
  const auto layer = read(q.template layer<0>());
  using layer_type = std::remove_cvref_t<decltype(layer)>;
  const auto x_q = ctattn::quantize<layer_type::input_quantization>(read(ctattn::from_array(encoder_rows)));
  const auto full = layer.forward(x_q);
  typename layer_type::template cache_type<4> cache{};
  typename layer_type::output_row y{};
  std::size_t bad = 0;
  for (std::size_t t = 0; t < 4; ++t) {
    bad += layer.step(row_of(x_q, t), cache, y) ? 0u : 1u;
    bad += row_differs(y, full, t);
  }
  const auto before = cache;
  const auto last = y;
  bad += layer.step(row_of(x_q, 1), cache, y) ? 1u : 0u;
  bad += cache == before && y == last ? 0u : 1u;
  return bad;
}

// Every case of this header, once (tests/support/case_list.hpp): tests/static, tests/runtime and tests/backend run
// them all.
inline constexpr unsigned hosted = in_constant_evaluation | at_run_time | with_each_backend;
inline constexpr auto every_case = std::tuple{
    test_case{"ranges recorded, post-norm decoder", hosted,
              [](auto read) { return recorded_range_mismatches<post_norm>(read); }},
    test_case{"ranges recorded, pre-norm decoder", hosted,
              [](auto read) { return recorded_range_mismatches<pre_norm>(read); }},
    test_case{"ranges recorded, decoder without a target mask", hosted,
              [](auto read) { return recorded_range_mismatches<pre_norm_unmasked>(read); }},
    test_case{"int8 post-norm decoder", hosted, [](auto read) { return decoder_mismatches<post_norm>(read); }},
    test_case{"int8 pre-norm decoder", hosted, [](auto read) { return decoder_mismatches<pre_norm>(read); }},
    test_case{"int8 decoder without a target mask", hosted,
              [](auto read) { return decoder_mismatches<pre_norm_unmasked>(read); }},
    test_case{"int8 pre-norm decoder, TFLite's softmax", hosted,
              [](auto read) { return decoder_mismatches<pre_norm_tflite_softmax>(read); }},
    test_case{"int8 decoding steps, post-norm decoder", hosted,
              [](auto read) { return decoder_step_mismatches<post_norm>(read); }},
    test_case{"int8 decoding steps, pre-norm decoder", hosted,
              [](auto read) { return decoder_step_mismatches<pre_norm>(read); }},
    test_case{"int8 decoding steps, pre-norm decoder, TFLite's softmax", hosted,
              [](auto read) { return decoder_step_mismatches<pre_norm_tflite_softmax>(read); }},
    test_case{"int8 decoding steps, post-norm causal encoder", hosted,
              [](auto read) { return encoder_step_mismatches<false>(read); }},
    test_case{"int8 decoding steps, pre-norm causal encoder", hosted,
              [](auto read) { return encoder_step_mismatches<true>(read); }},
};

}  // namespace ctattn_test::int8_decoder_cases
