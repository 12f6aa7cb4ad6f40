// SPDX-License-Identifier: BSL-1.0
// Decoder layers in int8: calibration with the memory (ctattn::record_ranges with ctattn::with_memory), the points
// of a pre-norm and a post-norm layer, and ctattn::quantize's qtransformer_decoder_layer against the int8
// operations composed by hand in the float layer's order.

#include <cstddef>
#include <string_view>

#include <ctattn/layers.hpp>
#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "support/int8_decoder_cases.hpp"

namespace {

// Against the Python reference: torch's layer, post-norm and pre-norm, and pre-norm without a tgt_mask; decoding
// token by token with the int8 KV cache, each token's row forward's, bit for bit: every case of
// tests/support/int8_decoder_cases.hpp, as tests/runtime and tests/backend run them.
static_assert(ctattn_test::every_constant_case_passes<ctattn_test::int8_decoder_cases::every_case>());

// Below, a smaller layer with numbered weights: the points and the composition in detail.

using ctattn_test::numbered;

template <bool NormFirst>
using decoder = ctattn::transformer_decoder_layer<float, 8, 2, 16, ctattn::relu, NormFirst>;
template <bool NormFirst>
struct decoder_model : ctattn::model<decoder_model<NormFirst>> {
  BOOST_HANA_DEFINE_STRUCT(decoder_model, (decoder<NormFirst>, block),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};

constexpr float target_rows[3][8] = {
    {0.5f, -1, 2, 0, 1, -0.25f, 3, 1}, {1, 1, -1, 2, 0, 0.5f, -2, 4}, {-3, 0.75f, 1, 1, -1, 2, 0.5f, 0}};
constexpr float memory_rows[4][8] = {{1, -2, 0.5f, 3, 0, 1, -1, 2},
                                     {-0.5f, 1, 2, -1, 1.5f, 0, 2, -2},
                                     {2, 2, -1, 0.25f, -3, 1, 0, 1},
                                     {0, -1, 1, 1, 2, -2, 0.75f, -0.5f}};
constexpr auto target = ctattn::from_array(target_rows);
constexpr auto memory = ctattn::from_array(memory_rows);

template <bool NormFirst>
constexpr auto recorded = [] {
  ctattn::activation_ranges<40> r{};
  (void)ctattn::record_ranges(numbered<decoder_model<NormFirst>>(), target, r, ctattn::with_memory(memory));
  return r;
}();
template <bool NormFirst>
constexpr auto table = recorded<NormFirst>.table();

// The recorded output is the model's, bit for bit; every point is there, named as the layer's docs say; the
// memory's range is the memory's, and the cross-attention's keys are the memory projected.
template <bool NormFirst>
constexpr bool records_every_point() {
  const auto m = numbered<decoder_model<NormFirst>>();
  ctattn::activation_ranges<40> r{};
  const auto y = ctattn::record_ranges(m, target, r, ctattn::with_memory(memory));
  if (!(y == m.forward(target, ctattn::with_memory(memory))) || r.overflowed) return false;
  for (const char* point : {"input",
                            "memory",
                            "block.norm1",
                            "block.query",
                            "block.key",
                            "block.value",
                            "block.scores",
                            "block.context",
                            "block.attention",
                            "block.sum1",
                            "block.norm2",
                            "block.cross_query",
                            "block.cross_key",
                            "block.cross_value",
                            "block.cross_scores",
                            "block.cross_context",
                            "block.cross_attention",
                            "block.sum2",
                            "block.hidden",
                            "block.activation",
                            "block.feed_forward",
                            "block",
                            "head",
                            "output"}) {
    if (r.find(point) == nullptr) return false;
  }
  const char* own = NormFirst ? "block.norm3" : "block.sum3";
  const char* other = NormFirst ? "block.sum3" : "block.norm3";
  return r.find(own) != nullptr && r.find(other) == nullptr && r.size() == 25 &&
         *r.find("memory") == ctattn::observed_range(memory) &&
         *r.find("block.cross_key") == ctattn::observed_range(ctattn::forward(m.block.multihead_attn.key, memory));
}
static_assert(records_every_point<true>());
static_assert(records_every_point<false>());

// Without the memory, recording a decoder is a compile error that says to give it (not tested here: a
// compile-fail test); with a memory mask, the cross-attention's scores cover only the keys it lets through.
constexpr bool memory_mask_narrows_the_scores() {
  const auto m = numbered<decoder_model<true>>();
  ctattn::activation_ranges<40> all{}, first{};
  (void)ctattn::record_ranges(m, target, all, ctattn::with_memory(memory));
  (void)ctattn::record_ranges(m, target, first, ctattn::with_memory(memory),
                              ctattn::memory_mask(ctattn::key_padding_length{1}));
  const auto a = *all.find("block.cross_scores");
  const auto f = *first.find("block.cross_scores");
  return f.lo >= a.lo && f.hi <= a.hi && !(f == a) && *all.find("block.cross_key") == *first.find("block.cross_key");
}
static_assert(memory_mask_narrows_the_scores());

// ctattn::quantize: the decoder layer's int8 form, the same bits as the int8 operations composed by hand in the
// float layer's order, each quantization read by name; within 5% of the head's range of the float model.
template <bool NormFirst>
constexpr bool quantized_as_composed() {
  const auto m = numbered<decoder_model<NormFirst>>();
  const auto q = ctattn::quantize<table<NormFirst>>(m);
  constexpr auto q_of = [](std::string_view name) {
    return ctattn::quantization_for_range(ctattn::range_at(table<NormFirst>, name));
  };
  constexpr ctattn::quantization in = q_of("input"), mem = q_of("memory"), query = q_of("block.query"),
                                 key = q_of("block.key"), value = q_of("block.value"), scores = q_of("block.scores"),
                                 context = q_of("block.context"), attention = q_of("block.attention"),
                                 sum1 = q_of("block.sum1"), norm1 = q_of("block.norm1"), norm2 = q_of("block.norm2"),
                                 cquery = q_of("block.cross_query"), ckey = q_of("block.cross_key"),
                                 cvalue = q_of("block.cross_value"), cscores = q_of("block.cross_scores"),
                                 ccontext = q_of("block.cross_context"), cattention = q_of("block.cross_attention"),
                                 sum2 = q_of("block.sum2"), hidden = q_of("block.hidden"),
                                 act = q_of("block.activation"), ff = q_of("block.feed_forward"), out = q_of("block"),
                                 head = q_of("head");
  constexpr ctattn::quantization last = NormFirst ? q_of("block.norm3") : q_of("block.sum3");
  const auto& s = m.block.self_attn.weights;
  const auto& c = m.block.multihead_attn;
  const auto x_q = ctattn::quantize<in>(target);
  const auto memory_q = ctattn::quantize<mem>(memory);
  constexpr ctattn::quantization self_in = NormFirst ? norm1 : in;
  constexpr ctattn::quantization cross_in = NormFirst ? norm2 : norm1;
  const auto self_weights = ctattn::make_qmulti_head_attention_weights<2>(
      ctattn::quantize_linear<self_in, query>(s.query), ctattn::quantize_linear<self_in, key>(s.key),
      ctattn::quantize_linear<self_in, value>(s.value), ctattn::quantize_linear<context, attention>(s.output));
  const auto cross_weights = ctattn::make_qmulti_head_attention_weights<2>(
      ctattn::quantize_linear<cross_in, cquery>(c.query), ctattn::quantize_linear<mem, ckey>(c.key),
      ctattn::quantize_linear<mem, cvalue>(c.value), ctattn::quantize_linear<ccontext, cattention>(c.output));
  const auto feed = [&]<ctattn::quantization FfIn>(const auto& h) {
    return ctattn::project(
        ctattn::activate(ctattn::project(h, ctattn::quantize_linear<FfIn, hidden>(m.block.ff.linear1)),
                         ctattn::quantize_activation<hidden, act>(ctattn::relu{})),
        ctattn::quantize_linear<act, ff>(m.block.ff.linear2));
  };
  const auto by_hand = [&] {
    if constexpr (NormFirst) {
      const auto n1 = ctattn::normalize(x_q, ctattn::quantize_layer_norm<in, norm1>(m.block.norm1));
      const auto a = ctattn::add<sum1>(x_q, ctattn::multi_head_attention<scores>(n1, self_weights, ctattn::causal));
      const auto n2 = ctattn::normalize(a, ctattn::quantize_layer_norm<sum1, norm2>(m.block.norm2));
      const auto b = ctattn::add<sum2>(a, ctattn::multi_head_attention<cscores>(n2, memory_q, cross_weights));
      const auto n3 = ctattn::normalize(b, ctattn::quantize_layer_norm<sum2, last>(m.block.norm3));
      return ctattn::add<out>(b, feed.template operator()<last>(n3));
    } else {
      const auto a = ctattn::normalize(
          ctattn::add<sum1>(x_q, ctattn::multi_head_attention<scores>(x_q, self_weights, ctattn::causal)),
          ctattn::quantize_layer_norm<sum1, norm1>(m.block.norm1));
      const auto b =
          ctattn::normalize(ctattn::add<sum2>(a, ctattn::multi_head_attention<cscores>(a, memory_q, cross_weights)),
                            ctattn::quantize_layer_norm<sum2, norm2>(m.block.norm2));
      return ctattn::normalize(ctattn::add<last>(b, feed.template operator()<norm2>(b)),
                               ctattn::quantize_layer_norm<last, out>(m.block.norm3));
    }
  }();
  const auto logits = ctattn::project(by_hand, ctattn::quantize_linear<out, head>(m.head));
  const auto r = ctattn::range_at(table<NormFirst>, "head");
  return q.forward(x_q, ctattn::with_memory(memory_q)) == logits && decltype(q)::memory_quantization == mem &&
         decltype(q)::output_quantization == head &&
         ctattn::int8_error(q, m, target, ctattn::with_memory(memory)) <= 0.05 * (r.hi - r.lo);
}
static_assert(quantized_as_composed<true>());
static_assert(quantized_as_composed<false>());

// A single layer as the whole model: recorded without a path (`norm1` ..., its output as `output`), quantized to a
// qchain of the one int8 layer, the same bits as the layer inside a model.
constexpr bool single_layer_as_in_a_model() {
  const auto m = numbered<decoder_model<false>>();
  ctattn::activation_ranges<40> r{};
  const auto y = ctattn::record_ranges(m.block, target, r, ctattn::with_memory(memory));
  return y == m.block.forward(target, memory) && r.find("norm1") != nullptr && r.find("sum3") != nullptr &&
         *r.find("output") == *recorded<false>.find("block") &&
         *r.find("norm1") == *recorded<false>.find("block.norm1");
}
static_assert(single_layer_as_in_a_model());
constexpr auto single_recorded = [] {
  ctattn::activation_ranges<40> r{};
  (void)ctattn::record_ranges(numbered<decoder_model<false>>().block, target, r, ctattn::with_memory(memory));
  return r;
}();
constexpr auto single_table = single_recorded.table();
static_assert([] {
  const auto m = numbered<decoder_model<false>>();
  const auto single = ctattn::quantize<single_table>(m.block);
  const auto in_model = ctattn::quantize<table<false>>(m);
  constexpr ctattn::quantization in = decltype(single)::first_layer::input_quantization;
  constexpr ctattn::quantization mem = decltype(single)::memory_quantization;
  const auto x_q = ctattn::quantize<in>(target);
  const auto memory_q = ctattn::quantize<mem>(memory);
  return single.layer<0>() == in_model.layer<0>() &&
         single.forward(x_q, ctattn::with_memory(memory_q)) == in_model.layer<0>().forward(x_q, memory_q) &&
         ctattn::int8_error(single, m.block, target, ctattn::with_memory(memory)) < 0.5;
}());

// The layer's footprint counts its object and both inputs.
using int8_decoder_model = ctattn::quantized_model<decoder_model<false>, table<false>>;
using int8_block = std::remove_cvref_t<decltype(int8_decoder_model{}.layer<0>())>;
using target_q = ctattn::qmatrix<3, 8, int8_block::input_quantization>;
using memory_q = ctattn::qmatrix<4, 8, int8_block::memory_quantization>;
static_assert(int8_block::footprint_of<target_q, memory_q>().weight_bytes == sizeof(int8_block));
static_assert(int8_block::footprint_of<target_q, memory_q>().input_bytes == sizeof(target_q) + sizeof(memory_q));
static_assert(int8_block::footprint_of<target_q, memory_q>().stack_bytes >
              int8_block::footprint_of<target_q, ctattn::qmatrix<1, 8, int8_block::memory_quantization>>().stack_bytes);

}  // namespace
