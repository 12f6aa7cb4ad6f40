// The int8 form of a model link by link (ctattn/quantized/links.hpp): each int8 link made from its float links is
// the layer ctattn::quantize makes, bit for bit, and the int8 links run in turn are the int8 model's forward, for a
// model on frames (a linear embedding, a class token, positions, a stack of encoder layers, a pool and a head) and
// for one on token ids (a token embedding and its positions: one int8 link of span 2).
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include <ctattn/layers.hpp>
#include <ctattn/layers/links.hpp>
#include <ctattn/quantized/links.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "support/layer_check.hpp"

namespace {

using block = ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, /*norm_first=*/false>;

struct frames_model : ctattn::model<frames_model> {
  BOOST_HANA_DEFINE_STRUCT(frames_model, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, embed),
                           (ctattn::class_token<float, 8>, cls_token), (ctattn::position_parameter<float, 6, 8>, pos),
                           (ctattn::sequential<block, block>, layers), (ctattn::class_token_pool, pool),
                           (ctattn::linear<float, 8, 3, ctattn::out_by_in, true>, head));
};

struct ids_model : ctattn::model<ids_model> {
  BOOST_HANA_DEFINE_STRUCT(ids_model, (ctattn::token_embedding<float, 10, 8>, embed),
                           (ctattn::position_embedding<float, 5, 8>, pos), (ctattn::sequential<block>, layers),
                           (ctattn::layer_norm<float, 8>, norm),
                           (ctattn::linear<float, 8, 10, ctattn::out_by_in, true>, head));
};

constexpr auto frames_input = [] {
  ctattn::matrix<float, 5, 4> x{};
  for (std::size_t t = 0; t < 5; ++t) {
    for (std::size_t f = 0; f < 4; ++f) x(t, f) = static_cast<float>(static_cast<int>((t * 7 + f * 3) % 11) - 5) / 4;
  }
  return x;
}();
constexpr std::array<int, 5> ids_input{3, 1, 4, 1, 5};

// Numbered weights, the position tables a quarter as large: each table's range differs from the others'.
template <typename M>
constexpr M weights_of() noexcept {
  M m = ctattn_test::numbered<M>();
  ctattn::for_each_parameter(m, [](std::string_view name, const auto& view) {
    if (name == "pos.weight") {
      for (std::size_t k = 0; k < view.size; ++k) view[k] = view[k] / 4;
    }
  });
  return m;
}
constexpr frames_model frames_weights = weights_of<frames_model>();
constexpr ids_model ids_weights = weights_of<ids_model>();

constexpr auto frames_recorded = [] {
  ctattn::activation_ranges<48> r{};
  (void)ctattn::record_ranges(frames_weights, frames_input, r);
  return r;
}();
constexpr auto frames_ranges = frames_recorded.table();
constexpr auto ids_recorded = [] {
  ctattn::activation_ranges<32> r{};
  (void)ctattn::record_ranges(ids_weights, ids_input, r);
  return r;
}();
constexpr auto ids_ranges = ids_recorded.table();
static_assert(!frames_recorded.overflowed && !ids_recorded.overflowed);

// The plans: one int8 link per float link on frames; the token embedding and its positions one link on ids.
static_assert(ctattn::link_count<frames_model> == 7 && ctattn::int8_link_count<frames_model> == 7);
static_assert(ctattn::link_count<ids_model> == 5 && ctattn::int8_link_count<ids_model> == 4);
static_assert(ctattn::int8_link_first<0, ids_model> == 0 && ctattn::int8_link_span<0, ids_model> == 2);
static_assert(ctattn::int8_link_first<1, ids_model> == 2 && ctattn::int8_link_span<1, ids_model> == 1);
static_assert(ctattn::int8_link_first<3, ids_model> == 4 && ctattn::int8_link_span<3, ids_model> == 1);
static_assert(ctattn::int8_link_first<4, frames_model> == 4 && ctattn::int8_link_span<6, frames_model> == 1);

// Int8 link J from its float links, as a unit of a chain of proofs makes it.
template <std::size_t J, const auto& Ranges, typename M>
constexpr auto int8_link(const M& model) noexcept {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ctattn::quantize_link<J, Ranges, M>(ctattn::link<ctattn::int8_link_first<J, M> + I>(model)...);
  }(std::make_index_sequence<ctattn::int8_link_span<J, M>>{});
}

// Every int8 link equals the whole model's layer J.
template <const auto& Ranges, typename M>
constexpr bool links_are_the_int8_layers(const M& model) noexcept {
  const auto whole = ctattn::quantize<Ranges>(model);
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return ((int8_link<J, Ranges>(model) == whole.template layer<J>()) && ...);
  }(std::make_index_sequence<ctattn::int8_link_count<M>>{});
}

// The int8 links run in turn, each on the one before's result as the chain's units check them, each result of the
// type int8_link_result names.
template <std::size_t J, std::size_t Count, const auto& Ranges, typename M, typename X, typename Y>
constexpr auto run_int8_links(const M& model, const Y& y) noexcept {
  if constexpr (J == Count) {
    return y;
  } else {
    const auto next = ctattn::run_link(int8_link<J, Ranges>(model), y);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(next)>, ctattn::int8_link_result<J, Ranges, M, X>>);
    return run_int8_links<J + 1, Count, Ranges, M, X>(model, next);
  }
}

static_assert(links_are_the_int8_layers<frames_ranges>(frames_weights));
static_assert(links_are_the_int8_layers<ids_ranges>(ids_weights));
static_assert(run_int8_links<0, 7, frames_ranges, frames_model, ctattn::matrix<float, 5, 4>>(
                  frames_weights, ctattn::int8_link_input<frames_ranges, frames_model>(frames_input)) ==
              ctattn::quantize<frames_ranges>(frames_weights)
                  .forward(ctattn::int8_link_input<frames_ranges, frames_model>(frames_input)));
static_assert(run_int8_links<0, 4, ids_ranges, ids_model, std::array<int, 5>>(
                  ids_weights, ctattn::int8_link_input<ids_ranges, ids_model>(ids_input)) ==
              ctattn::quantize<ids_ranges>(ids_weights).forward(ids_input));

// Options reach a link as they reach the whole model: an encoder layer's link quantized with TFLite's softmax is
// the whole model's layer so quantized, and its attention takes that softmax.
constexpr ctattn::quantize_options tflite_softmax{.softmax = ctattn::softmax_method::tflite};
constexpr auto block0_tflite =
    int8_link<3, ctattn::with_quantize_options<frames_ranges, tflite_softmax>>(frames_weights);
static_assert(block0_tflite == ctattn::quantize<frames_ranges, tflite_softmax>(frames_weights).template layer<3>());
static_assert(decltype(block0_tflite)::quantizations.softmax == ctattn::softmax_method::tflite);
static_assert(decltype(int8_link<3, frames_ranges>(frames_weights))::quantizations.softmax ==
              ctattn::softmax_method::rounded);

// int4 weights reach a link as they reach the whole model: the encoder layer's six linears (and nothing else of it)
// store int4, the link is the whole model's layer, and the int4 model runs link by link as a whole.
constexpr ctattn::quantize_options int4_weights{.weights = ctattn::weight_format::int4};
constexpr auto block0_int4 = int8_link<3, ctattn::with_quantize_options<frames_ranges, int4_weights>>(frames_weights);
static_assert(block0_int4 == ctattn::quantize<frames_ranges, int4_weights>(frames_weights).template layer<3>());
static_assert(decltype(block0_int4)::quantizations.weights == ctattn::weight_format::int4 &&
              decltype(block0_int4.linear2)::format == ctattn::weight_format::int4 &&
              decltype(block0_int4.self_attn.query)::format == ctattn::weight_format::int4);
static_assert(sizeof(block0_int4) < sizeof(int8_link<3, frames_ranges>(frames_weights)));
constexpr auto frames_int4_ranges = ctattn::with_quantize_options<frames_ranges, int4_weights>;
static_assert(run_int8_links<0, 7, frames_int4_ranges, frames_model, ctattn::matrix<float, 5, 4>>(
                  frames_weights, ctattn::int8_link_input<frames_int4_ranges, frames_model>(frames_input)) ==
              ctattn::quantize<frames_ranges, int4_weights>(frames_weights)
                  .forward(ctattn::int8_link_input<frames_ranges, frames_model>(frames_input)));

// The results' types, link by link: the class token adds a row, the pool keeps one.
static_assert(ctattn::int8_link_result<1, frames_ranges, frames_model, ctattn::matrix<float, 5, 4>>::rows == 6);
static_assert(ctattn::int8_link_result<5, frames_ranges, frames_model, ctattn::matrix<float, 5, 4>>::rows == 1);
static_assert(ctattn::int8_link_result<3, ids_ranges, ids_model, std::array<int, 5>>::cols == 10);
// The input: frames quantized with Q(input); ids as they are.
static_assert(std::is_same_v<decltype(ctattn::int8_link_input<ids_ranges, ids_model>(ids_input)), std::array<int, 5>>);
static_assert(decltype(ctattn::int8_link_input<frames_ranges, frames_model>(frames_input))::quant ==
              ctattn::quantization_for_range(ctattn::range_at(frames_ranges, "input")));

}  // namespace
