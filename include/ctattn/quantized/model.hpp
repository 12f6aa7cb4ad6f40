// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_MODEL_HPP
#define CTATTN_QUANTIZED_MODEL_HPP

/// \file
/// A whole float model quantized by the compiler: `ctattn::quantize<Ranges>(model)` maps a `ctattn::model` (or a
/// `ctattn::sequential`) and the ranges its calibration recorded (`ctattn::record_ranges`, a generated header of
/// `ctattn::named_range`s) to its int8 form, every quantization read by name from `Ranges`.
///
/// | float layer (at path P, input quantization QIn) | int8 layer                                                   |
/// |-------------------------------------------------|--------------------------------------------------------------|
/// | `token_embedding` then `position_embedding`     | `qembedding`: the tables with `P.weight`'s ranges, the sum with the position member's |
/// | `position_embedding` after another layer        | `qposition_embedding`: the table with `P.weight`'s range, the int8 ADD into Q(P) |
/// | `token_embedding` alone                         | `qtoken_embedding`: the table with `P.weight`'s range, the output in the table's quantization |
/// | `transformer_encoder_layer` (pre- or post-norm) | `qtransformer_encoder_layer`: its quantizations from QIn and `P.norm1` ... `P.feed_forward` (`P.sum2` post-norm), `P` |
/// | `transformer_decoder_layer` (pre- or post-norm) | `qtransformer_decoder_layer`: as an encoder layer's, with `P.cross_query` ... `P.cross_attention`, `P.sum2`, `P.norm3` (`P.sum3` post-norm), the memory in Q(`memory`) |
/// | `multi_head_attention_layer` (self-attention)   | `qmulti_head_attention_layer`: W_Q, W_K, W_V from QIn to Q(`P.query`) ..., W_O from Q(`P.context`) to Q(P), the scores Q(`P.scores`), the mask kept |
/// | `feed_forward`                                  | a `qchain` of its two per-channel `qlinear`s and the activation's table: Q(`P.hidden`), Q(`P.activation`), Q(P) |
/// | `gated_feed_forward`                            | `qgated_feed_forward`: w1, w3 from QIn to Q(`P.w1`), Q(`P.w3`), the gate's table to Q(`P.activation`), the product in Q(`P.product`), w2 to Q(P) |
/// | `llama_attention`                               | `qllama_attention`: wq, wk, wv from QIn to Q(`P.query`), Q(`P.key`), Q(`P.value`) (the rotation in the same), the scores Q(`P.scores`), wo from Q(`P.context`) to Q(P) |
/// | `llama_block`                                   | `qllama_block`: its sublayers' int8 forms at `P.attention_norm`, `P.attention`, `P.ffn_norm`, `P.feed_forward`, the sums in Q(`P.sum1`) and Q(P) |
/// | `llama_transformer` (as the whole model)        | `qllama_transformer` itself, not a one-layer `qchain`: `P.tok_embeddings`'s table, the blocks at `P.layers.<i>`, `P.norm`, the int8 logits in Q(P) (`output` at the top; untied, the head's `qlinear` at `P.output`) |
/// | `residual`                                      | `qresidual`: the inner layer's int8 form at `P.inner`, the sum in Q(P) |
/// | `layer_norm`                                    | `qlayer_norm<Width, QIn, Q(P)>`                              |
/// | `rms_norm`                                      | `qrms_norm<Width, QIn, Q(P)>`                                |
/// | `linear` (out x in)                             | `qlinear<In, Out, QIn, Q(P)>`, per channel                   |
/// | `relu`, `gelu`, `gelu_tanh`, `silu`             | `qactivation<QIn, Q(P)>`                                     |
/// | `patch_embedding_1d`, `patch_embedding_2d`      | `qpatch_embedding`: the patches gathered in QIn, its per-channel `qlinear` to Q(P) |
/// | `class_token`                                   | `qclass_token<D, QIn, Q(P)>`: the token in Q(P), the rows requantized to it |
/// | `position_parameter`                            | `qposition_embedding`, as `position_embedding`               |
/// | `class_token_pool`, `mean_pool`                 | `qclass_token_pool<QIn>` (keeps QIn), `qmean_pool<QIn, Q(P)>` |
/// | a `ctattn::model`, a `ctattn::sequential`       | its members' int8 forms, each fed by the one before, in one flat `qchain` (a nested chain's layers spliced in) |
/// | a layer of one's own with a friend `int8_form(self, at)` | what `int8_form` returns, `at` an `int8_context<Ranges, P, QIn>` (QIn, the ranges under P, Q(P)): docs/layers.md, "A layer of your own" |
///
/// Q(name) is `quantization_for_range(range_at(Ranges, name))`. The first member's QIn is Q(`input`), the range
/// `record_ranges` gives a model's matrix input (a model on token ids needs none).
///
/// In 16x8 (`quantize_options::activations` int16, or an override), the embeddings, class tokens, learned positions,
/// encoder layers, norms, linear layers, activations and the class token's pooling take their 16x8 forms
/// (`qembedding<..., std::int16_t>`, `qclass_token<..., std::int16_t>`, `qposition_embedding<..., std::int16_t>`, a
/// 16x8 `qtransformer_encoder_layer`, `q16layer_norm`, `q16linear`, `q16activation`, `qclass_token_pool<Q,
/// std::int16_t>`), Q(name) then `quantization_for_range(range, activation_format::int16)`; the other layers stay
/// int8, and a `qconversion` joins the widths where they change.
///
/// The verified sorter in int8 is `ctattn::quantized_model<toy::sorter, toy::sorter_ranges>`, its value
/// `ctattn::quantize<toy::sorter_ranges>(sorter_weights)` (examples/verified_model/int8_sorter.hpp).
///
/// Example (a llama-style model, ctattn/quantized/llama.hpp: its ranges recorded and its int8 form made by the
/// compiler, then one decoding step):
/// \code
///   using tiny = ctattn::llama_transformer<float, 8, 4, 1, 2, 1, 4, 4>;   // vocabulary 8, width 4, 1 block
///   constexpr tiny weights = [] {
///     tiny m{};
///     ctattn::for_each_parameter(m, [](std::string_view, const auto& view) {
///       for (std::size_t i = 0; i < view.size; ++i) view[i] = static_cast<float>(i % 5) / 4.0f - 0.5f;
///     });
///     return m;
///   }();
///   constexpr auto recorded = [] {
///     ctattn::activation_ranges<40> ranges{};
///     (void)ctattn::record_ranges(weights, std::array<int, 4>{1, 5, 2, 7}, ranges);
///     return ranges;
///   }();
///   constexpr auto table = recorded.table();
///   constexpr auto int8_tiny = ctattn::quantize<table>(weights);   // a qllama_transformer
///   constexpr std::size_t next = [] {
///     decltype(int8_tiny)::decode_state<4> state{};
///     decltype(int8_tiny)::logits_row logits{};
///     (void)int8_tiny.step(1, state, logits);
///     return ctattn::greedy_token(logits);
///   }();
///   static_assert(next < 8);
/// \endcode
///
/// Example (a model on matrices; its ranges as a generated header would hold them):
/// \code
///   struct classifier : ctattn::model<classifier> {
///     BOOST_HANA_DEFINE_STRUCT(classifier, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, hidden),
///                              (ctattn::relu, act), (ctattn::linear<float, 8, 2, ctattn::out_by_in, true>, out));
///   };
///   inline constexpr ctattn::named_range classifier_ranges[] = {
///       {"input", {-1.0, 1.0}}, {"hidden", {-2.0, 3.0}}, {"act", {0.0, 3.0}}, {"out", {-4.0, 4.0}}};
///   using int8_classifier = ctattn::quantized_model<classifier, classifier_ranges>;
///   constexpr int8_classifier int8_weights = ctattn::quantize<classifier_ranges>(classifier{});
///   constexpr auto x_q = ctattn::quantize<ctattn::quantization_for_range(-1.0, 1.0)>(ctattn::matrix<double, 3, 4>{});
///   constexpr auto y_q = int8_weights.forward(x_q);   // qmatrix<3, 2, Q(out)>
/// \endcode

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ctattn/kernels/int8.hpp"
#include "ctattn/layers.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/quantized/embedding.hpp"
#include "ctattn/quantized/feed_forward.hpp"
#include "ctattn/quantized/llama.hpp"
#include "ctattn/quantized/patch.hpp"
#include "ctattn/quantized/points.hpp"
#include "ctattn/quantized/pool.hpp"
#include "ctattn/quantized/ranges.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/transformer.hpp"

namespace ctattn {

/// The weights of one layer of a model and of the layers inside it, other than the model's
/// (`quantize_options::overrides`): `path` names the layer as the ranges do (a member, `head`; a sequential's
/// element, `layers.0`; a whole sequential, `layers`).
///
/// | member        | what                                            | default                           |
/// |---------------|-------------------------------------------------|-----------------------------------|
/// | `path`        | the layer's name                                | (none)                            |
/// | `weights`     | its linear layers' weights (`weight_format`)    | `weight_format::int8`             |
/// | `granularity` | their scales (`weight_granularity`)             | `weight_granularity::per_channel` |
/// | `activations` | its activations (`activation_format`; int16, 16x8, where the layer has a 16x8 form) | `activation_format::int8` |
///
/// An entry sets all three for the layers it names.
///
/// Example: `inline constexpr ctattn::layer_weights keep_int8[] = {{"head"}, {"layers.0"}};`
/// Example (only the encoder layers in 16x8): `inline constexpr ctattn::layer_weights layers_16x8[] = {{"layers", ctattn::weight_format::int8, ctattn::weight_granularity::per_channel, ctattn::activation_format::int16}};`
struct layer_weights {
  std::string_view path;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
  activation_format activations = activation_format::int8;
};

/// A table of `layer_weights` with static storage, as `quantize_options::overrides` holds it (its first entry and
/// its count, so that the options stay a structural value): made from the table itself.
///
/// Example: `constexpr ctattn::layer_weights_table t = keep_int8;  // t.count == 2`
struct layer_weights_table {
  const layer_weights* first = nullptr;
  std::size_t count = 0;

  constexpr layer_weights_table() noexcept = default;
  template <std::size_t N>
  constexpr layer_weights_table(const layer_weights (&table)[N]) noexcept  // NOLINT: converts, as a table stands in
      : first(table), count(N) {}
  [[nodiscard]] constexpr const layer_weights* begin() const noexcept { return first; }
  [[nodiscard]] constexpr const layer_weights* end() const noexcept { return first + count; }
  friend constexpr bool operator==(const layer_weights_table&, const layer_weights_table&) = default;
};

/// How `ctattn::quantize` forms a model's int8 layers beyond what the ranges fix: a structural value, the second
/// template argument of `quantize` (the defaults when omitted).
///
/// | member    | what                                                   | default                    |
/// |-----------|--------------------------------------------------------|----------------------------|
/// | `softmax` | every attention's softmax (ctattn/quantized/softmax.hpp) | `softmax_method::rounded` |
/// | `granularity` | those weights' scales: one per output channel, or one per layer (`weight_granularity`; TFLite Micro and CMSIS-NN take int4 weights per tensor only) | `weight_granularity::per_channel` |
/// | `weights` | every linear layer's weights, the attention projections' and feed-forward blocks' included (`weight_format`, ctattn/quantized/weights.hpp); embeddings and norms keep theirs | `weight_format::int8` |
/// | `activations` | the activations' width (`activation_format`): int16 puts every layer with a 16x8 form in TFLite's 16x8 mode (token and position embeddings, class tokens, learned positions, linear layers, norms, activations, attention and feed-forward layers, residual connections, encoder layers, the class token's pooling; their int16 quantizations from the same ranges, symmetric), the others stay int8, a conversion (`qconversion`) between them; int16 attention takes TFLite's int16 softmax whatever `softmax` says | `activation_format::int8` |
/// | `overrides` | layers whose weights or activations differ from `weights`, `granularity` and `activations` (`layer_weights`; the longest path that names a layer or a layer it is in decides; each must name a layer with linear weights or a 16x8 form: `weight_override_must_name_a_layer`, and one asking for int16 a layer with a 16x8 form: `layer_needs_a_16x8_form`) | none |
///
/// Example: `constexpr auto q = ctattn::quantize<ranges, ctattn::quantize_options{.softmax = ctattn::softmax_method::tflite}>(model);`
/// Example: `constexpr auto q4 = ctattn::quantize<ranges, ctattn::quantize_options{.weights = ctattn::weight_format::int4}>(model);`
/// Example: `constexpr auto q16 = ctattn::quantize<ranges, ctattn::quantize_options{.activations = ctattn::activation_format::int16}>(model);`
/// Example (int4 weights but the head's, `head_in_int8` a `layer_weights` table `{{"head"}}`):
/// `constexpr auto q = ctattn::quantize<ranges, ctattn::quantize_options{.weights = ctattn::weight_format::int4, .overrides = head_in_int8}>(model);`
struct quantize_options {
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
  activation_format activations = activation_format::int8;
  layer_weights_table overrides{};
  friend constexpr bool operator==(const quantize_options&, const quantize_options&) = default;
};

namespace detail {
// A ranges table and options, iterated as the table itself, so that every reading of the ranges reads it unchanged
// and `options_in` finds the options.
// Rationale: the table's first entry and its count rather than std::begin and std::end, whose <iterator> cost the
// int8 sorter's proof 5% more compile time.
struct ranges_with_options {
  const named_range* first;
  std::size_t count;
  quantize_options options;
  // Every layer quantized with int8 activations, whatever `options` says (a residual connection's inner layers).
  bool int8_only = false;
  [[nodiscard]] constexpr const named_range* begin() const noexcept { return first; }
  [[nodiscard]] constexpr const named_range* end() const noexcept { return first + count; }
};
template <std::size_t N>
[[nodiscard]] constexpr ranges_with_options with_options(const std::array<named_range, N>& table,
                                                         const quantize_options& options) noexcept {
  return {table.data(), N, options};
}
template <std::size_t N>
[[nodiscard]] constexpr ranges_with_options with_options(const named_range (&table)[N],
                                                         const quantize_options& options) noexcept {
  return {table, N, options};
}
}  // namespace detail

/// A ranges table that carries `quantize_options`: it stands wherever a ranges table does (`quantize`,
/// `quantize_link`, `int8_link_result`, ...), and each reads the options from it. `quantize<Ranges, Options>` is
/// `quantize<with_quantize_options<Ranges, Options>>`.
///
/// Example: `constexpr auto layer3 = ctattn::quantize_link<3, ctattn::with_quantize_options<ranges, options>, model>(link3);`
template <const auto& Ranges, quantize_options Options>
inline constexpr detail::ranges_with_options with_quantize_options = detail::with_options(Ranges, Options);

namespace detail {
// A qchain's storage: each layer a member of a base of its own, so that reaching one takes two steps.
// Rationale: a constant evaluation reads a weight through every subobject between the model object and the
// weight; boost::hana::tuple puts four or five between them (its storage, its implementation, an ebo base), which
// made the int8 sorter's forward passes in static_assert a fifth slower than with named members.
template <std::size_t I, typename T>
struct chain_slot {
  T value;
  friend constexpr bool operator==(const chain_slot&, const chain_slot&) = default;
};
template <typename Indices, typename... Layers>
struct chain_storage;
template <std::size_t... I, typename... Layers>
struct chain_storage<std::index_sequence<I...>, Layers...> : chain_slot<I, Layers>... {
  friend constexpr bool operator==(const chain_storage&, const chain_storage&) = default;
};
template <std::size_t I, typename T>
[[nodiscard]] constexpr const T& slot(const chain_slot<I, T>& s) noexcept {
  return s.value;
}
template <std::size_t I, typename T>
[[nodiscard]] constexpr T& slot(chain_slot<I, T>& s) noexcept {
  return s.value;
}

// The memory quantization of the first layer with one (a decoder layer), else 1.0.
template <typename... Layers>
[[nodiscard]] constexpr quantization memory_quantization_of() noexcept {
  quantization q{1.0};
  bool found = false;
  (
      [&] {
        if constexpr (needs_memory<Layers>) {
          if (!found) q = Layers::memory_quantization;
          found = true;
        }
      }(),
      ...);
  return q;
}
}  // namespace detail

/// Int8 layers run in order, each on the previous one's result: the int8 form of a `ctattn::model` or a
/// `ctattn::sequential` (`ctattn::quantize<Ranges>`). It has the layer protocol's verbs.
///
/// | member                   | shape                                                              |
/// |--------------------------|--------------------------------------------------------------------|
/// | `layer<I>()`             | layer I (`qembedding`, `qtransformer_encoder_layer`, `qlayer_norm`, `qlinear`, ...) |
/// | `forward(x, options...)` | x: the first layer's input (ids, or a `qmatrix`); result: the last layer's; options: decoder layers' memory (`ctattn::with_memory(memory_q)`) and masks |
/// | `memory_quantization`    | the quantization of the memory its decoder layers read (the range `memory`) |
/// | `footprint_of<X>()`      | the layers' calls composed (`ctattn::layer_footprint`)             |
/// | `output_quantization`    | the last layer's                                                   |
/// | `first_layer`, `last_layer` | the first and last layers' types (`first_layer::input_quantization` quantizes a matrix input) |
///
/// Example: `const auto logits = ctattn::quantize<toy::sorter_ranges>(model).forward(ids);`
template <typename... Layers>
struct qchain : detail::input_quantization_of<detail::layer_at<0, Layers...>> {
  static_assert(sizeof...(Layers) > 0);
  using last_layer = detail::layer_at<sizeof...(Layers) - 1, Layers...>;
  using first_layer = detail::layer_at<0, Layers...>;
  static constexpr quantization output_quantization = last_layer::output_quantization;
  /// Whether its output is int16 (its last layer's is).
  static constexpr bool int16 = [] {
    if constexpr (requires { last_layer::int16; }) {
      return bool{last_layer::int16};
    } else {
      return false;
    }
  }();
  /// Whether it holds decoder layers, whose forward needs the memory (`ctattn::with_memory`).
  static constexpr bool needs_memory = (detail::needs_memory<Layers> || ...);
  /// The quantization of the memory its decoder layers attend to (a model without decoder layers: none, 1.0).
  static constexpr quantization memory_quantization = detail::memory_quantization_of<Layers...>();

  detail::chain_storage<std::index_sequence_for<Layers...>, Layers...> layers;

  /// The layers in turn on x; `options` go to every layer that takes them: the memory of decoder layers
  /// (`ctattn::with_memory(memory_q)`, in `memory_quantization`) and their masks.
  template <typename X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    constexpr bool memory_kept = !needs_memory || (detail::is_memory_option<Options>::value || ...);
    if constexpr (!shape_error::decoder_needs_its_memory<op::quantized_decoder_layer, memory_kept>::check()) {
      return result_of<X>{};
    } else {
      return detail::run_chain<sizeof...(Layers) - 1>(
          [&](auto i) -> const auto& { return detail::slot<decltype(i)::value>(layers); }, x, options...);
    }
  }

  /// Layer I.
  template <std::size_t I>
  [[nodiscard]] constexpr const auto& layer() const noexcept {
    return detail::slot<I>(layers);
  }

  template <typename X>
  using result_of = typename detail::sequence_result<X, Layers...>::type;

  template <typename X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::held_in<qchain>(detail::sequence_footprint<X, Layers...>::of());
  }

  friend constexpr bool operator==(const qchain&, const qchain&) = default;
};

namespace detail {
template <typename L>
concept HasInputQuantization = requires { L::input_quantization; };

// The activation format of a quantized layer's output and of its input: int16 where the layer says so.
template <typename L>
inline constexpr activation_format output_format_of = [] {
  if constexpr (requires { L::int16; }) {
    return L::int16 ? activation_format::int16 : activation_format::int8;
  } else {
    return activation_format::int8;
  }
}();
template <typename L>
inline constexpr activation_format input_format_of = output_format_of<L>;
template <quantization QIn, quantization QOut, typename To>
inline constexpr activation_format input_format_of<qconversion<QIn, QOut, To>> =
    std::same_as<To, std::int16_t> ? activation_format::int8 : activation_format::int16;

// The largest |dequantize(q) - y| over two results of one shape (NaN counts as the largest).
template <typename Q, typename Y>
[[nodiscard]] constexpr double largest_difference(const Q& q, const Y& y) noexcept {
  double worst = 0;
  for (std::size_t i = 0; i < Y::rows; ++i) {
    for (std::size_t c = 0; c < Y::cols; ++c) {
      const double d = static_cast<double>(q(i, c)) - static_cast<double>(y(i, c));
      const double e = d < 0 ? -d : d;
      worst = e > worst || e != e ? e : worst;
    }
  }
  return worst;
}

// The float model's output on x: a model's (or a single layer's) forward.
template <typename M, typename X, typename... Options>
[[nodiscard]] constexpr auto float_output(const M& model, const X& x, const Options&... options) noexcept {
  if constexpr (Layer<M> && FixedMatrix<X>) {
    return ctattn::forward(model, x, options...);
  } else {
    return model.forward(x, options...);
  }
}

// The int8 model's input: ids as they are, a float matrix quantized with its first layer's input quantization.
template <typename Chain, typename X>
[[nodiscard]] constexpr auto int8_input(const X& x) noexcept {
  if constexpr (FixedMatrix<X>) {
    using first = typename Chain::first_layer;
    static_assert(HasInputQuantization<first>, "ctattn: the int8 model's first layer takes no matrix");
    if constexpr (input_format_of<first> == activation_format::int16) {
      return quantize<first::input_quantization, std::int16_t>(x);
    } else {
      return quantize<first::input_quantization>(x);
    }
  } else {
    return x;
  }
}
}  // namespace detail

/// A float model's input as its quantized form takes it: a float matrix quantized with the first layer's input
/// quantization, to int8 or, where the first layer is 16x8, to int16; token ids as they are.
///
/// | operand | what                                                        |
/// |---------|-------------------------------------------------------------|
/// | `Q`     | the quantized model's type (`ctattn::quantized_model<M, Ranges, Options>`) |
/// | `x`     | ids, or an n x d float matrix                               |
/// | result  | `x`, or `qmatrix<n, d, Q::first_layer::input_quantization>` (16x8: `q16matrix`) |
///
/// Example: `const auto y = q.forward(ctattn::quantized_input<decltype(q)>(frames));`
template <typename Q, typename X>
[[nodiscard]] constexpr auto quantized_input(const X& x) noexcept {
  return detail::int8_input<Q>(x);
}

/// How far an int8 model is from the float model it was quantized from, on one input: the largest
/// |dequantize(int8_model(x)) - model(x)| over the output. `x` is the float model's input: token ids go to both; a
/// float matrix is quantized with the int8 model's input quantization first. Constexpr, so a `static_assert` can
/// bound the int8 model's error on given inputs.
///
/// | operand      | what                                                         |
/// |--------------|--------------------------------------------------------------|
/// | `int8_model` | `ctattn::quantize<Ranges>(model)` (a `qchain`)               |
/// | `model`      | the float model (or the single layer `quantize` was given)   |
/// | `x`          | ids, or an n x d float matrix                                |
/// | result       | double, in the output's units                                |
///
/// Example: `static_assert(ctattn::int8_error(int8_weights, sorter_weights, golden::inputs[0]) < 2.0);`
template <typename... Layers, typename Model, typename X>
[[nodiscard]] constexpr double int8_error(const qchain<Layers...>& int8_model, const Model& model,
                                          const X& x) noexcept {
  const auto q = dequantize(int8_model.forward(detail::int8_input<qchain<Layers...>>(x)));
  return detail::largest_difference(q, detail::float_output(model, x));
}

/// The same for a model of decoder layers, on a target x and a float memory (`ctattn::with_memory(memory)`): the
/// memory goes to the float model as it is and to the int8 model quantized with its `memory_quantization`.
///
/// Example: `static_assert(ctattn::int8_error(int8_decoder, decoder, tgt, ctattn::with_memory(memory)) < 0.1);`
template <typename... Layers, typename Model, typename X, typename Memory>
[[nodiscard]] constexpr double int8_error(const qchain<Layers...>& int8_model, const Model& model, const X& x,
                                          const memory_option<Memory>& memory) noexcept {
  const auto memory_q = quantize<qchain<Layers...>::memory_quantization>(*memory.memory);
  const auto q = dequantize(int8_model.forward(detail::int8_input<qchain<Layers...>>(x), with_memory(memory_q)));
  return detail::largest_difference(q, detail::float_output(model, x, memory));
}

namespace detail {
template <typename L>
inline constexpr bool is_float_linear = false;
template <typename T, auto In, auto Out, bool Bias>
inline constexpr bool is_float_linear<basic_linear<T, In, Out, out_by_in, Bias>> = true;
template <typename L>
inline constexpr bool is_float_layer_norm = false;
template <typename T, auto W, bool Affine>
inline constexpr bool is_float_layer_norm<layer_norm<T, W, Affine>> = true;
template <typename L>
inline constexpr bool is_float_rms_norm = false;
template <typename T, auto W, bool Affine>
inline constexpr bool is_float_rms_norm<rms_norm<T, W, Affine>> = true;

// The rule that a table holds the point `Missing` names (the empty name: it holds every point read), with the
// point spelled out in the rule's type; true when it holds.
template <parameter_name Missing, std::size_t... C>
[[nodiscard]] constexpr bool ranges_hold_point(std::index_sequence<C...>) noexcept {
  constexpr bool holds = Missing.length == 0;
  return shape_error::ranges_must_hold_every_point<op::quantize, point<Missing.chars[C]...>, holds>::check();
}

// The probe `quantize` runs before reading a layer's points: the same members as `table_points`, each point checked
// against the table and its whole name kept when it is the first one missing; every range it gives is [-1, 1], so
// the layer's quantizations can still be formed (and its type named) after the rule has said which point is missing.
template <typename Table>
struct missing_points {
  const Table& table;
  const parameter_name& path;
  parameter_name first{};
  constexpr value_range point(std::string_view name) noexcept {
    if (first.length == 0 && !holds_point(table, path.view(), name)) first = point_name(path, name);
    return {-1.0, 1.0};
  }
  constexpr value_range output() noexcept {
    if (first.length == 0 && !holds_point(table, {}, output_name(path))) first.append(output_name(path));
    return {-1.0, 1.0};
  }
};

// The options a ranges table carries (`with_quantize_options`), else the defaults.
template <typename Table>
[[nodiscard]] constexpr quantize_options options_in(const Table& table) noexcept {
  if constexpr (requires { table.options; }) {
    return table.options;
  } else {
    return {};
  }
}

// Whether `path` is `layer` or the name of a layer inside it (`layer` followed by a dot).
[[nodiscard]] constexpr bool path_is_within(std::string_view path, std::string_view layer) noexcept {
  return path.size() >= layer.size() && path.substr(0, layer.size()) == layer &&
         (path.size() == layer.size() || layer.empty() || path[layer.size()] == '.');
}

// The options of the layer at `path`: `options`, with the weights of the override with the longest path that names
// it or a layer it is in.
[[nodiscard]] constexpr quantize_options options_at(const quantize_options& options, std::string_view path) noexcept {
  quantize_options result = options;
  std::size_t longest = 0;
  bool found = false;
  for (const layer_weights& entry : options.overrides) {
    if (path_is_within(path, entry.path) && (!found || entry.path.size() >= longest)) {
      result.weights = entry.weights;
      result.granularity = entry.granularity;
      result.activations = entry.activations;
      longest = entry.path.size();
      found = true;
    }
  }
  return result;
}

// The table `quantize` probes a layer of one's own with (`provides_int8_form`, `int8_form_rules`): every point read
// from it is [-1, 1], so that the layer's int8 form can be formed, and its type checked, before a table is read.
struct any_point_table {};
inline constexpr any_point_table any_points{};

// The range of the point `name` of the layer at `path` in `table` (its output's, for `output`).
template <typename Table>
[[nodiscard]] constexpr value_range context_range(const Table& table, std::string_view path, std::string_view name,
                                                  bool output) noexcept {
  if constexpr (std::is_same_v<Table, any_point_table>) {
    return {-1.0, 1.0};
  } else {
    return output ? range_at_output(table, path) : range_at_point(table, path, name);
  }
}
}  // namespace detail

/// Where a layer of one's own is quantized, and for what: the argument `ctattn::quantize` gives the layer's friend
/// `int8_form(self, at)` (docs/layers.md, "A layer of your own"), by value. It holds nothing; every member is
/// static and constexpr, so that the int8 layer's type can carry them (`decltype(at)::output_quantization`, or
/// `At::output_quantization` for the function's template parameter At).
///
/// | member                  | what                                                                       |
/// |-------------------------|----------------------------------------------------------------------------|
/// | `input_quantization`    | QIn, the quantization of the layer's input: the output quantization of the int8 layer before it (Q(`input`) for the first) |
/// | `path`                  | the layer's path as the ranges name it (`scale`, `layers.1`, `block.inner`; empty for a single layer quantized alone) |
/// | `output_range`          | the range `ctattn::record_ranges` recorded at the layer's output (under `path`, or `output` for a single layer) |
/// | `output_quantization`   | `quantization_for_range(output_range)`: the asymmetric int8 quantization the library's layers give their output |
/// | `range_at(name)`        | the range recorded at the point `name` under `path` (`<path>.<name>`), which the layer's `record_points` hook widens (`ctattn::point_recorder`, ctattn/quantized/ranges.hpp); a name the table lacks stops the build, naming `ranges_table_lacks_this_point_record_it_with_record_ranges` |
/// | `quantization_at(name)` | `quantization_for_range(range_at(name))`                                    |
/// | `options`               | the `quantize_options` at `path` (the softmax, the weights' format and granularity, an override naming a layer the layer is in applied) |
///
/// The int8 layer `int8_form` returns joins the int8 chain as the library's do: its `output_quantization` is the
/// input quantization of the next layer's form, the chain calls its `forward(x)` on int8 rows and composes its
/// `footprint_of<X>()` (the rule `int8_form_must_be_an_int8_layer` says what it lacks otherwise). Declare its
/// `input_quantization` too (read when it is the model's first layer: `ctattn::quantized_input`, `int8_error`) and
/// `operator==` (for comparing int8 models).
///
/// Example (x * 2, a layer of one's own, and its int8 form: each int8 element doubled into the output's
/// quantization):
/// \code
///   template <ctattn::quantization QIn, ctattn::quantization QOut>
///   struct qdoubling {
///     static constexpr ctattn::quantization input_quantization = QIn;
///     static constexpr ctattn::quantization output_quantization = QOut;
///     static constexpr ctattn::math::quantized_multiplier twice =
///         ctattn::math::quantize_multiplier(2.0 * QIn.scale() / QOut.scale());
///     template <ctattn::QuantizedMatrix X>
///     constexpr auto forward(const X& x) const noexcept {
///       ctattn::basic_qmatrix<X::row_extent, X::column_extent, QOut> y;
///       for (std::size_t r = 0; r < X::rows; ++r) {
///         for (std::size_t c = 0; c < X::cols; ++c)
///           y.elements[r][c] = ctattn::requantize(x.elements[r][c] - QIn.zero_point, twice, QOut.zero_point);
///       }
///       return y;
///     }
///     template <ctattn::QuantizedMatrix X>
///     static constexpr ctattn::footprint footprint_of() noexcept {
///       return {0, sizeof(X), sizeof(ctattn::basic_qmatrix<X::row_extent, X::column_extent, QOut>), 0, 0};
///     }
///   };
///   struct doubling {
///     using value_type = float;
///     static constexpr bool keeps_width = true;
///     template <ctattn::FixedMatrix X, typename... Options>
///     constexpr X forward(const X& x, const Options&...) const noexcept { return ctattn::add(x, x); }
///     template <ctattn::FixedMatrix X>
///     static constexpr ctattn::footprint footprint_of() noexcept { return {0, sizeof(X), sizeof(X), 0, 0}; }
///     friend constexpr auto parameters(const doubling&) noexcept { return boost::hana::make_tuple(); }
///     friend constexpr auto parameters(doubling&) noexcept { return boost::hana::make_tuple(); }
///     template <typename At>   // ctattn::int8_context<Ranges, Path, QIn>
///     friend constexpr auto int8_form(const doubling&, At) noexcept {
///       return qdoubling<At::input_quantization, At::output_quantization>{};
///     }
///   };
///   struct net : ctattn::model<net> {
///     BOOST_HANA_DEFINE_STRUCT(net, (doubling, twice), (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, head));
///   };
///   inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}}, {"twice", {-2.0, 2.0}}, {"head", {-3.0, 3.0}}};
///   static_assert(ctattn::HasInt8Form<doubling>);
///   constexpr auto int8_net = ctattn::quantize<ranges>(net{});   // qchain<qdoubling<Q(input), Q(twice)>, qlinear<...>>
///   static_assert(int8_net.layer<0>().output_quantization == ctattn::quantization_for_range(-2.0, 2.0));
///   static_assert(int8_net.layer<1>().input_quantization == int8_net.layer<0>().output_quantization);
/// \endcode
template <const auto& Ranges, parameter_name Path, quantization QIn>
struct int8_context {
  static constexpr quantization input_quantization = QIn;
  static constexpr std::string_view path = Path.view();
  static constexpr value_range output_range = detail::context_range(Ranges, Path.view(), {}, true);
  static constexpr quantization output_quantization = quantization_for_range(output_range);
  static constexpr quantize_options options = detail::options_at(detail::options_in(Ranges), Path.view());

  /// The range recorded at the point `name` under the layer's path (`<path>.<name>`, `<name>` for a single layer).
  [[nodiscard]] static constexpr value_range range_at(std::string_view name) noexcept {
    return detail::context_range(Ranges, Path.view(), name, false);
  }
  /// The asymmetric int8 quantization of that range (`quantization_for_range`).
  [[nodiscard]] static constexpr quantization quantization_at(std::string_view name) noexcept {
    return quantization_for_range(range_at(name));
  }
};

/// TFLite's requantization of one int32 sum to int8, the int8 kernels' own step: `accumulator` times the fixed-point
/// `multiplier` (`math::multiply_by_quantized_multiplier`, TFLite's two roundings), plus `zero_point`, clamped to
/// [-128, 127]. For the int8 form of a layer of one's own (`ctattn::int8_context`): the multiplier is
/// `math::quantize_multiplier(s_in * s_weight / s_out)`, made once where the layer is.
///
/// Example: `static_assert(ctattn::requantize(100, ctattn::math::quantize_multiplier(0.25), -3) == 22);`
[[nodiscard]] constexpr std::int8_t requantize(std::int32_t accumulator, math::quantized_multiplier multiplier,
                                               std::int32_t zero_point) noexcept {
  return detail::kernels::requantize(accumulator, multiplier, zero_point);
}

namespace detail {
// Whether `ctattn::quantize` has a 16x8 form for a float layer of type L (see `quantize_options::activations`).
// (A token embedding's is its pair's, with the position embedding after it; alone it stays int8.)
template <typename L>
inline constexpr bool has_16x8_form =
    is_encoder_layer<L> || is_attention_layer<L> || is_feed_forward<L> || is_gated_feed_forward<L> || is_residual<L> ||
    is_float_linear<L> || is_float_layer_norm<L> || is_float_rms_norm<L> || activation_layer_type<L> ||
    std::is_same_v<L, class_token_pool> || is_token_embedding<L> || is_class_token<L> || is_position_embedding<L>;

// Whether a table pins every layer to int8 activations (`int8_ranges`).
template <typename Table>
[[nodiscard]] constexpr bool int8_only_in(const Table& table) noexcept {
  if constexpr (requires { table.int8_only; }) {
    return table.int8_only;
  } else {
    return false;
  }
}

// The activation format of the quantized form of a layer of type L at `path`, its input of format `in`: its
// options' where it has a 16x8 form; a chain's, its input's (its elements choose their own); int8 for the others.
template <typename L, typename Table>
[[nodiscard]] constexpr activation_format layer_format(const Table& table, std::string_view path,
                                                       activation_format in) noexcept {
  if constexpr (is_chain<L>) {
    return in;
  } else if constexpr (has_16x8_form<L>) {
    return int8_only_in(table) ? activation_format::int8 : options_at(options_in(table), path).activations;
  } else {
    return activation_format::int8;
  }
}

// The quantization of a conversion's output (`qconversion`), from its input's: to int16, symmetric over the values
// the int8 quantization holds; to int8, over the values the int16 one holds.
[[nodiscard]] constexpr quantization converted_quantization(quantization q, activation_format to) noexcept {
  const double s = q.scale();
  if (to == activation_format::int16) {
    return quantization_for_range({(-128.0 - q.zero_point) * s, (127.0 - q.zero_point) * s}, to);
  }
  return quantization_for_range({-32767.0 * s, 32767.0 * s}, to);
}

// The first point of `Ranges` a layer's quantizations at Path read and the table lacks, with the quantizations read
// from the probe's ranges; `Read(points)` reads them (encoder_layer_quantizations_from, ...).
template <typename Quantizations>
struct probed {
  parameter_name missing;
  Quantizations quantizations;
};
template <const auto& Ranges, parameter_name Path, typename Read>
[[nodiscard]] constexpr auto probe_points(Read read) noexcept {
  missing_points<std::remove_cvref_t<decltype(Ranges)>> at{Ranges, Path};
  const auto quantizations = read(at);
  return probed<std::remove_cvref_t<decltype(quantizations)>>{at.first, quantizations};
}

// The quantization of the range named `Path` in `Ranges` (`output` for the empty path of a single layer); a name the
// table lacks is the rule ranges_must_hold_every_point (and the quantization of [-1, 1], so that nothing after it
// fails too).
template <const auto& Ranges, parameter_name Path, activation_format F = activation_format::int8>
struct output_quantization {
  static constexpr parameter_name missing = probe_points<Ranges, Path>([](auto& at) { return at.output(); }).missing;
  static constexpr bool holds = ranges_hold_point<missing>(std::make_index_sequence<missing.length>{});
  static constexpr quantization value =
      holds ? quantization_for_range(range_at_output(Ranges, Path.view()), F) : quantization_for_range({-1.0, 1.0}, F);
};
template <const auto& Ranges, parameter_name Path, activation_format F = activation_format::int8>
inline constexpr quantization quantization_at = output_quantization<Ranges, Path, F>::value;

// The quantizations a layer's int8 form reads from the ranges table, other than an encoder or decoder layer's
// (encoder_layer_quantizations, decoder_layer_quantizations): one struct per kind, each point named once, in
// `layer_points_from`.
struct attention_layer_points {
  quantization query, key, value, context, scores, output;
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
};
struct feed_forward_points {
  quantization hidden, activation, output;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
};
struct gated_feed_forward_points {
  quantization w1, activation, w3, product, output;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
};
// A llama block's own points: the first sum and the block's output (its sublayers read theirs at their paths).
struct llama_block_points {
  quantization sum1, output;
};
struct linear_points {
  quantization output;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
};
struct position_embedding_points {
  quantization weight, output;
};
struct token_embedding_points {
  quantization weight;
};
struct output_points {
  quantization output;
};
struct no_points {};

// The points the int8 form of a layer of type L reads, each once, from `at` (`table_points`, or the probe that names
// the first point a table lacks), its input quantized with `input` and a decoder's memory with `memory`. A chain reads
// none of its own (its elements read theirs), nor does the class token's pooling.
template <typename L, typename Points>
[[nodiscard]] constexpr auto layer_points_from(Points& at, quantization input, quantization memory,
                                               const quantize_options& options,
                                               activation_format format = activation_format::int8) noexcept {
  const auto point = [&](std::string_view name) { return quantization_for_range(at.point(name), format); };
  const auto output = [&] { return quantization_for_range(at.output(), format); };
  if constexpr (is_encoder_layer<L>) {
    encoder_layer_quantizations q = encoder_layer_quantizations_from(at, input, L::norm_first, format);
    // Rationale: 16x8 attention has one softmax, TFLite's int16 one (set by encoder_layer_quantizations_for).
    if (format == activation_format::int8) q.softmax = options.softmax;
    q.weights = options.weights;
    q.granularity = options.granularity;
    return q;
  } else if constexpr (is_decoder_layer<L>) {
    decoder_layer_quantizations q = decoder_layer_quantizations_from(at, input, memory, L::norm_first);
    q.softmax = options.softmax;
    q.weights = options.weights;
    q.granularity = options.granularity;
    return q;
  } else if constexpr (is_attention_layer<L>) {
    return attention_layer_points{point(points::query),   point(points::key),    point(points::value),
                                  point(points::context), point(points::scores), output(),
                                  options.softmax,        options.weights,       options.granularity};
  } else if constexpr (is_llama_attention<L>) {
    return llama_attention_quantizations{point(points::query),  point(points::key),     point(points::value),
                                         point(points::scores), point(points::context), output(),
                                         options.softmax,       options.weights,        options.granularity};
  } else if constexpr (is_llama_block<L>) {
    return llama_block_points{point(points::sum1), output()};
  } else if constexpr (is_feed_forward<L>) {
    return feed_forward_points{point(points::hidden), point(points::activation), output(), options.weights,
                               options.granularity};
  } else if constexpr (is_gated_feed_forward<L>) {
    return gated_feed_forward_points{
        point(points::w1), point(points::activation), point(points::w3),  point(points::product),
        output(),          options.weights,           options.granularity};
  } else if constexpr (is_position_embedding<L>) {
    return position_embedding_points{point(points::weight), output()};
  } else if constexpr (is_token_embedding<L>) {
    return token_embedding_points{point(points::weight)};
  } else if constexpr (is_chain<L> || std::is_same_v<L, class_token_pool>) {
    return no_points{};
  } else if constexpr (is_float_linear<L> || is_patch_embedding<L>) {
    return linear_points{output(), options.weights, options.granularity};
  } else {  // a residual connection, class token, patch embedding, mean pooling, norm, linear layer or activation
    return output_points{output()};
  }
}

// The points of a layer of type L at Path, fed by QIn, in format F, read from `Ranges`: probed first, so that a point
// the table lacks is the rule's sentence, once, rather than a constant expression that fails in each place it is read
// (after the rule, the probe's quantizations of [-1, 1], so that nothing after it fails too).
template <const auto& Ranges, parameter_name Path, quantization QIn, typename L,
          activation_format F = activation_format::int8>
struct layer_points {
  static constexpr quantization memory = [] {
    if constexpr (is_decoder_layer<L>) {
      return quantization_at<Ranges, point_name(parameter_name{}, points::memory)>;
    } else {
      return quantization{1.0};
    }
  }();
  static constexpr quantize_options options = options_at(options_in(Ranges), Path.view());
  static constexpr auto probe =
      probe_points<Ranges, Path>([](auto& at) { return layer_points_from<L>(at, QIn, memory, options, F); });
  static constexpr bool holds = ranges_hold_point<probe.missing>(std::make_index_sequence<probe.missing.length>{});
  static constexpr auto value = [] {
    if constexpr (holds) {
      const table_points<std::remove_cvref_t<decltype(Ranges)>> at{Ranges, Path.view()};
      return layer_points_from<L>(at, QIn, memory, options, F);
    } else {
      return probe.quantizations;
    }
  }();
};
template <const auto& Ranges, parameter_name Path, quantization QIn, typename L,
          activation_format F = activation_format::int8>
inline constexpr auto points_of = layer_points<Ranges, Path, QIn, L, F>::value;

// Whether the int8 form of a layer of type L holds linear layers whose weights `quantize_options` chooses: a linear
// layer, a patch embedding, an attention, a feed-forward block, an encoder or decoder layer, or a chain or residual
// connection around one (embeddings, norms, activations and pools keep theirs).
template <typename L>
[[nodiscard]] constexpr bool has_linear_weights() noexcept;
template <typename C, std::size_t... I>
[[nodiscard]] constexpr bool chain_has_linear_weights(std::index_sequence<I...>) noexcept {
  return (has_linear_weights<chain_element_type<I, C>>() || ...);
}
template <typename L>
[[nodiscard]] constexpr bool has_linear_weights() noexcept {
  if constexpr (is_chain<L>) {
    return chain_has_linear_weights<L>(std::make_index_sequence<chain_length<L>()>{});
  } else if constexpr (is_residual<L>) {
    return has_linear_weights<std::remove_cvref_t<decltype(std::declval<const L&>().inner)>>();
  } else {
    return is_float_linear<L> || is_patch_embedding<L> || is_attention_layer<L> || is_feed_forward<L> ||
           is_gated_feed_forward<L> || is_encoder_layer<L> || is_decoder_layer<L> || is_llama_attention<L> ||
           is_llama_block<L> || is_llama_transformer<L>;
  }
}

// Whether `name` is the path of L at `path`, or of a layer inside it that `quantize` maps as a whole (a chain's
// elements, a residual connection's inner layer), that has linear weights.
template <typename L>
[[nodiscard]] constexpr bool names_a_layer(const parameter_name& path, std::string_view name) noexcept;
template <typename C, std::size_t... I>
[[nodiscard]] constexpr bool names_a_chain_layer(const parameter_name& path, std::string_view name,
                                                 std::index_sequence<I...>) noexcept {
  return (names_a_layer<chain_element_type<I, C>>(point_name(path, chain_name<C>(I)), name) || ...);
}
template <typename L>
[[nodiscard]] constexpr bool names_a_layer(const parameter_name& path, std::string_view name) noexcept {
  if (path.view() == name) return has_linear_weights<L>() || has_16x8_form<L>;
  if (!path_is_within(name, path.view())) return false;
  if constexpr (is_chain<L>) {
    return names_a_chain_layer<L>(path, name, std::make_index_sequence<chain_length<L>()>{});
  } else if constexpr (is_residual<L>) {
    return names_a_layer<std::remove_cvref_t<decltype(std::declval<const L&>().inner)>>(point_name(path, points::inner),
                                                                                        name);
  } else {
    return false;
  }
}

// Whether the layer `name` names, L at `path` or a layer inside it, has a 16x8 form or holds layers that may have
// one (a chain).
template <typename L>
[[nodiscard]] constexpr bool names_a_16x8_layer(const parameter_name& path, std::string_view name) noexcept;
template <typename C, std::size_t... I>
[[nodiscard]] constexpr bool names_a_16x8_chain_layer(const parameter_name& path, std::string_view name,
                                                      std::index_sequence<I...>) noexcept {
  return (names_a_16x8_layer<chain_element_type<I, C>>(point_name(path, chain_name<C>(I)), name) || ...);
}
template <typename L>
[[nodiscard]] constexpr bool names_a_16x8_layer(const parameter_name& path, std::string_view name) noexcept {
  if (path.view() == name) return has_16x8_form<L> || is_chain<L>;
  if (!path_is_within(name, path.view())) return false;
  if constexpr (is_chain<L>) {
    return names_a_16x8_chain_layer<L>(path, name, std::make_index_sequence<chain_length<L>()>{});
  } else if constexpr (is_residual<L>) {
    return names_a_16x8_layer<std::remove_cvref_t<decltype(std::declval<const L&>().inner)>>(
        point_name(path, points::inner), name);
  } else {
    return false;
  }
}

// The path of the first override in `options` that names no layer of model M with linear weights or a 16x8 form
// (`Int16` false), or that asks for int16 a layer without a 16x8 form (`Int16` true); the empty name when there is
// none.
template <typename M, bool Int16 = false>
[[nodiscard]] constexpr parameter_name first_stray_override(const quantize_options& options) noexcept {
  for (const layer_weights& entry : options.overrides) {
    const bool misnamed =
        Int16 ? entry.activations == activation_format::int16 && !names_a_16x8_layer<M>(parameter_name{}, entry.path)
              : !names_a_layer<M>(parameter_name{}, entry.path);
    if (misnamed) {
      parameter_name stray{};
      stray.append(entry.path);
      return stray;
    }
  }
  return {};
}
// The rule that every override in `Ranges`'s options names a layer of M, with the first that does not spelled out in
// the rule's type.
// Rationale: the stray path a variable of its own, not a default template argument of class type, which GCC 12
// crashes on when the next default reads it.
template <const auto& Ranges, typename M, bool Int16 = false>
inline constexpr parameter_name stray_override_of = first_stray_override<M, Int16>(options_in(Ranges));
template <const auto& Ranges, typename M, bool Int16 = false,
          typename Chars = std::make_index_sequence<stray_override_of<Ranges, M, Int16>.length>>
struct override_rule_of;
template <const auto& Ranges, typename M, bool Int16, std::size_t... C>
struct override_rule_of<Ranges, M, Int16, std::index_sequence<C...>> {
  static constexpr const parameter_name& stray = stray_override_of<Ranges, M, Int16>;
  using type = std::conditional_t<
      Int16, shape_error::layer_needs_a_16x8_form<op::quantize, M, point<stray.chars[C]...>, stray.length == 0>,
      shape_error::weight_override_must_name_a_layer<op::quantize, M, point<stray.chars[C]...>, stray.length == 0>>;
};
template <const auto& Ranges, typename M, bool Int16 = false>
using override_rule = typename override_rule_of<Ranges, M, Int16>::type;

// The first point of L at `path` that `Ranges` lacks (the empty name when it holds them all), through chains and
// residual connections: every point a layer's int8 form reads, read by the probe as quantize_layer reads them, and a
// decoder layer's `memory`. `quantize` asks it before building anything, so that the rule's sentence comes with a
// short instantiation chain.
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr parameter_name first_missing_layer_point(const parameter_name& path) noexcept;
// The first point a llama block's or model's sublayers read and `Ranges` lacks, each at its path (the block's
// norms, attention and feed-forward block; the model's token table, blocks, final norm and untied head).
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr parameter_name first_missing_llama_point(const parameter_name& path) noexcept {
  parameter_name missing{};
  const auto at = [&]<typename Sublayer>(std::type_identity<Sublayer>, std::string_view name) {
    if (missing.length == 0) missing = first_missing_layer_point<Ranges, Sublayer>(point_name(path, name));
  };
  if constexpr (is_llama_block<L>) {
    at(std::type_identity<decltype(L::attention_norm)>{}, points::attention_norm);
    at(std::type_identity<decltype(L::attention)>{}, points::attention);
    at(std::type_identity<decltype(L::ffn_norm)>{}, points::ffn_norm);
    at(std::type_identity<decltype(L::feed_forward)>{}, points::feed_forward);
  } else {
    at(std::type_identity<decltype(L::tok_embeddings)>{}, points::tok_embeddings);
    at(std::type_identity<decltype(L::layers)>{}, points::layers);
    at(std::type_identity<decltype(L::norm)>{}, points::norm);
    if constexpr (!L::tied) at(std::type_identity<decltype(L::output)>{}, points::output);
  }
  return missing;
}
template <const auto& Ranges, typename C, std::size_t... I>
[[nodiscard]] constexpr parameter_name first_missing_chain_point(const parameter_name& path,
                                                                 std::index_sequence<I...>) noexcept {
  parameter_name missing{};
  ((missing.length == 0 ? (void)(missing = first_missing_layer_point<Ranges, chain_element_type<I, C>>(
                                     point_name(path, chain_name<C>(I))))
                        : void()),
   ...);
  return missing;
}
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr parameter_name first_missing_layer_point(const parameter_name& path) noexcept {
  missing_points<std::remove_cvref_t<decltype(Ranges)>> at{Ranges, path};
  if constexpr (is_chain<L>) {
    return first_missing_chain_point<Ranges, L>(path, std::make_index_sequence<chain_length<L>()>{});
  } else {
    if constexpr (is_residual<L>) {
      const parameter_name inner =
          first_missing_layer_point<Ranges, std::remove_cvref_t<decltype(std::declval<const L&>().inner)>>(
              point_name(path, points::inner));
      if (inner.length != 0) return inner;
    } else if constexpr (is_llama_block<L> || is_llama_transformer<L>) {
      const parameter_name inner = first_missing_llama_point<Ranges, L>(path);
      if (inner.length != 0) return inner;
    } else if constexpr (is_decoder_layer<L>) {
      const parameter_name root_path{};
      missing_points<std::remove_cvref_t<decltype(Ranges)>> root{Ranges, root_path};
      (void)root.point(points::memory);
      if (root.first.length != 0) return root.first;
    }
    (void)layer_points_from<L>(at, quantization{1.0}, quantization{1.0}, quantize_options{});
    return at.first;
  }
}
template <const auto& Ranges, typename L>
inline constexpr parameter_name first_missing_point = first_missing_layer_point<Ranges, L>(parameter_name{});

// Whether a layer of L at `path` (or inside it, through chains) is to be quantized in 16x8 with int4 weights, which
// 16x8 has no form for: `quantize` asks it before building anything, so that the rule's sentence comes first.
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr bool int4_in_16x8(const parameter_name& path) noexcept;
template <const auto& Ranges, typename C, std::size_t... I>
[[nodiscard]] constexpr bool int4_in_16x8_chain(const parameter_name& path, std::index_sequence<I...>) noexcept {
  return (int4_in_16x8<Ranges, chain_element_type<I, C>>(point_name(path, chain_name<C>(I))) || ...);
}
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr bool int4_in_16x8(const parameter_name& path) noexcept {
  if constexpr (is_chain<L>) {
    return int4_in_16x8_chain<Ranges, L>(path, std::make_index_sequence<chain_length<L>()>{});
  } else if constexpr (is_residual<L>) {
    // Rationale: in 16x8 its inner layers take their own formats; in int8 they are int8 (int8_ranges).
    return layer_format<L>(Ranges, path.view(), activation_format::int8) == activation_format::int16 &&
           int4_in_16x8<Ranges, std::remove_cvref_t<decltype(std::declval<const L&>().inner)>>(
               point_name(path, points::inner));
  } else if constexpr (is_float_linear<L> || is_encoder_layer<L> || is_attention_layer<L> || is_feed_forward<L> ||
                       is_gated_feed_forward<L>) {
    return layer_format<L>(Ranges, path.view(), activation_format::int8) == activation_format::int16 &&
           options_at(options_in(Ranges), path.view()).weights == weight_format::int4;
  } else {
    return false;
  }
}
template <const auto& Ranges, typename M>
inline constexpr bool int4_weights_in_16x8 = int4_in_16x8<Ranges, M>(parameter_name{});
template <const auto& Ranges, typename M>
using int16_weights_rule = shape_error::int16_activations_take_int8_weights<
    op::quantize,
    shape_error::weight_format_constant<int4_weights_in_16x8<Ranges, M> ? weight_format::int4 : weight_format::int8>,
    shape_error::activation_format_constant<int4_weights_in_16x8<Ranges, M> ? activation_format::int16
                                                                            : activation_format::int8>>;

// The int8 form of a layer of one's own, found by argument-dependent lookup only (a friend of the layer, or a
// function of its namespace): `int8_form(layer, at)`, `at` an `int8_context`.
// Rationale: the deleted declaration stops the unqualified lookup here, so that no function of ctattn's namespaces
// named so is taken for the layer's.
namespace int8_form_hook {
void int8_form() = delete;
template <typename L, typename At>
concept provides = requires(const L& layer, At at) { int8_form(layer, at); };
template <typename L, typename At>
[[nodiscard]] constexpr auto call(const L& layer, At at) noexcept {
  return int8_form(layer, at);
}
}  // namespace int8_form_hook

// The context `quantize` probes a layer of one's own with before it reads a table: every range [-1, 1], the input in
// their quantization.
inline constexpr quantization probe_quantization = quantization_for_range(-1.0, 1.0);
using probe_context = int8_context<any_points, parameter_name{}, probe_quantization>;

// Whether a float layer of type L gives its own int8 form (`int8_form(self, at)`).
template <typename L>
inline constexpr bool provides_int8_form = int8_form_hook::provides<L, probe_context>;

// The input the int8 form of a layer of one's own is probed with: one row of the float layer's input width (one
// column for a layer that keeps its width, which takes any), in the probe's quantization.
template <typename L>
[[nodiscard]] consteval auto probe_input_extent() noexcept {
  if constexpr (requires { L::input_extent; }) {
    return L::input_extent;
  } else {
    return std::size_t{1};
  }
}
template <typename L>
using probe_input = basic_qmatrix<std::size_t{1}, probe_input_extent<L>(), probe_quantization>;

// What the int8 chain reads of each of its layers: a constant `output_quantization`, `forward(x)` on int8 rows X
// giving quantized rows, a static `footprint_of<X>()`.
template <typename R, typename X>
concept int8_layer_for = requires(const R& layer, const X& x) {
  typename quantization_constant<R::output_quantization>;
  { layer.forward(x) } -> AnyQuantizedMatrix;
  { R::template footprint_of<X>() } -> std::same_as<footprint>;
};

// The rule of a layer of one's own's int8 form: what it returns, for the probe, is an int8 layer (none for the
// library's layers).
template <typename L, bool Provides = provides_int8_form<L>>
struct int8_form_rules_of {
  using type = rule_list<>;
};
template <typename L>
struct int8_form_rules_of<L, true> {
  using form = std::remove_cvref_t<decltype(int8_form_hook::call(std::declval<const L&>(), probe_context{}))>;
  using type = rule_list<
      shape_error::int8_form_must_be_an_int8_layer<op::quantize, L, form, int8_layer_for<form, probe_input<L>>>>;
};
template <typename L>
using int8_form_rules = typename int8_form_rules_of<L>::type;

// Whether `ctattn::quantize` has an int8 form for a layer of type L (a token embedding's is its pair's; a layer of
// one's own gives its own).
template <typename L>
inline constexpr bool has_int8_form =
    is_chain<L> || is_encoder_layer<L> || is_decoder_layer<L> || is_attention_layer<L> || is_feed_forward<L> ||
    is_gated_feed_forward<L> || is_residual<L> || is_position_embedding<L> || is_class_token<L> ||
    is_patch_embedding<L> || std::is_same_v<L, class_token_pool> || std::is_same_v<L, mean_pool> ||
    is_float_layer_norm<L> || is_float_rms_norm<L> || is_float_linear<L> || activation_layer_type<L> ||
    is_token_embedding<L> || is_llama_attention<L> || is_llama_block<L> || is_llama_transformer<L> ||
    provides_int8_form<L>;
}  // namespace detail

/// Whether `ctattn::quantize` has an int8 form of a float layer of type L: a layer of the library's (see this
/// header), a `ctattn::model` or `ctattn::sequential` (whose members are checked when it is quantized), or a layer of
/// one's own that gives its own by a friend `int8_form(self, at)` (`ctattn::int8_context`).
///
/// Example: `static_assert(ctattn::HasInt8Form<ctattn::layer_norm<float, 8>> && !ctattn::HasInt8Form<ctattn::linear<float, 4, 2, ctattn::in_by_out>>);`
template <typename L>
concept HasInt8Form = detail::has_int8_form<std::remove_cvref_t<L>>;

namespace detail {
// The rules of quantizing a chain's elements I to the end: each has an int8 form (a position embedding right after a
// token embedding is the pair's; a layer of one's own's an int8 layer), a nested chain's elements in turn.
template <typename C, std::size_t I = 0>
struct quantize_rules_of;
template <typename C, std::size_t I>
inline constexpr std::size_t next_or_self = I + 1 < chain_length<C>() ? I + 1 : I;
template <typename C, std::size_t I, typename E, bool Chain = is_chain<E>, bool Token = is_token_embedding<E>>
struct element_quantize_rules {
  using type = rule_list<shape_error::layer_needs_an_int8_form<op::quantize, E, has_int8_form<E>>, int8_form_rules<E>>;
};
template <typename C, std::size_t I, typename E, bool Token>
struct element_quantize_rules<C, I, E, true, Token> {
  using type = typename quantize_rules_of<E, 0>::type;
};
template <typename C, std::size_t I, typename E>
struct element_quantize_rules<C, I, E, false, true> {  // a token embedding, alone or with its positions
  using type = rule_list<>;
};
template <typename C, std::size_t I>
  requires(I >= chain_length<C>())
struct quantize_rules_of<C, I> {
  using type = rule_list<>;
};
template <typename C, std::size_t I>
  requires(I < chain_length<C>())
struct quantize_rules_of<C, I> {
  using element = chain_element_type<I, C>;
  static constexpr bool pair = I + 1 < chain_length<C>() && is_token_embedding<element> &&
                               is_position_embedding<chain_element_type<next_or_self<C, I>, C>>;
  using type = rule_list<std::conditional_t<I == 0, chain_forward_rules<op::quantize, C>, rule_list<>>,
                         typename element_quantize_rules<C, I, element>::type,
                         typename quantize_rules_of<C, (pair ? I + 2 : I + 1)>::type>;
};

// What a layer without an int8 form becomes after its error: nothing that adds a second error.
template <quantization Q>
struct no_int8_form {
  static constexpr quantization output_quantization = Q;
  template <typename X>
  [[nodiscard]] constexpr X forward(const X& x) const noexcept {
    return x;
  }
  template <typename X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {};
  }
  friend constexpr bool operator==(const no_int8_form&, const no_int8_form&) = default;
};

template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format F = activation_format::int8,
          typename L>
constexpr auto quantize_layer(const L& layer) noexcept;
template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format In, std::size_t I, std::size_t J,
          typename C, typename Tuple>
constexpr void fill_elements(const C& chain, Tuple& out) noexcept;

// How a chain element of type E at Path joins a chain whose activations reach it in QIn, of format `In`: its own
// format, and when that is the other one, the conversion (TFLite's QUANTIZE) put before it and the quantization
// the element then reads.
template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format In, typename E>
struct element_plan {
  static constexpr activation_format format = layer_format<E>(Ranges, Path.view(), In);
  static constexpr bool converts = format != In;
  static constexpr quantization input = converts ? converted_quantization(QIn, format) : QIn;
  using conversion = qconversion<QIn, input, activation_value<format>>;
};

// The types of the int8 forms of a chain's elements I to the end, element I fed by QIn, as `int8_list<...>`: a
// token embedding and the position embedding after it as one qembedding, a nested chain's layers spliced in.
template <typename... Layers>
struct int8_list {};
template <typename A, typename B>
struct int8_list_concat;
template <typename... A, typename... B>
struct int8_list_concat<int8_list<A...>, int8_list<B...>> {
  using type = int8_list<A..., B...>;
};
template <typename List>
struct int8_list_info;
template <typename... Layers>
struct int8_list_info<int8_list<Layers...>> {
  static constexpr std::size_t size = sizeof...(Layers);
  using last = layer_at<sizeof...(Layers) - 1, Layers...>;
  using chain = qchain<Layers...>;
};

template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format In, typename C, std::size_t I,
          bool End = (I >= chain_length<C>())>
struct int8_elements {
  using type = int8_list<>;
};
template <const auto& Ranges, parameter_name Path, parameter_name ElementPath, quantization QIn, activation_format In,
          typename C, std::size_t I, typename E, bool Chain = is_chain<E>, bool Token = is_token_embedding<E>>
struct int8_element {  // a leaf, after its conversion where it needs one
  using plan = element_plan<Ranges, ElementPath, QIn, In, E>;
  using layer = decltype(quantize_layer<Ranges, ElementPath, plan::input, plan::format>(std::declval<const E&>()));
  using head = std::conditional_t<plan::converts, int8_list<typename plan::conversion, layer>, int8_list<layer>>;
  using type = typename int8_list_concat<head, typename int8_elements<Ranges, Path, layer::output_quantization,
                                                                      output_format_of<layer>, C, I + 1>::type>::type;
};
template <const auto& Ranges, parameter_name Path, parameter_name ElementPath, quantization QIn, activation_format In,
          typename C, std::size_t I, typename E, bool Token>
struct int8_element<Ranges, Path, ElementPath, QIn, In, C, I, E, true, Token> {  // a nested chain
  using inner = typename int8_elements<Ranges, ElementPath, QIn, In, E, 0>::type;
  using last = typename int8_list_info<inner>::last;
  using type = typename int8_list_concat<inner, typename int8_elements<Ranges, Path, last::output_quantization,
                                                                       output_format_of<last>, C, I + 1>::type>::type;
};
// Whether element I of C is a token embedding with a position embedding right after it (quantized as one).
template <typename C, std::size_t I>
inline constexpr bool token_pair_at = I + 1 < chain_length<C>() && is_token_embedding<chain_element_type<I, C>> &&
                                      is_position_embedding<chain_element_type<next_or_self<C, I>, C>>;
template <const auto& Ranges, parameter_name Path, parameter_name ElementPath, quantization QIn, typename C,
          std::size_t I, typename E, bool Pair = token_pair_at<C, I>>
struct int8_token_element {  // a token embedding and its positions, int8 or 16x8
  static constexpr parameter_name positions = point_name(Path, chain_name<C>(I + 1));
  using position_type = chain_element_type<I + 1, C>;
  static constexpr activation_format format = layer_format<E>(Ranges, ElementPath.view(), activation_format::int8);
  static constexpr position_embedding_points q = points_of<Ranges, positions, QIn, position_type, format>;
  using layer = decltype(quantize_embedding<points_of<Ranges, ElementPath, QIn, E, format>.weight, q.weight, q.output,
                                            activation_value<format>>(std::declval<const E&>(),
                                                                      std::declval<const position_type&>()));
  using type = typename int8_list_concat<
      int8_list<layer>,
      typename int8_elements<Ranges, Path, layer::output_quantization, output_format_of<layer>, C, I + 2>::type>::type;
};
template <const auto& Ranges, parameter_name Path, parameter_name ElementPath, quantization QIn, typename C,
          std::size_t I, typename E>
struct int8_token_element<Ranges, Path, ElementPath, QIn, C, I, E, false> {  // a token embedding alone
  using layer =
      decltype(quantize_token_embedding<points_of<Ranges, ElementPath, QIn, E>.weight>(std::declval<const E&>()));
  using type = typename int8_list_concat<
      int8_list<layer>,
      typename int8_elements<Ranges, Path, layer::output_quantization, activation_format::int8, C, I + 1>::type>::type;
};
template <const auto& Ranges, parameter_name Path, parameter_name ElementPath, quantization QIn, activation_format In,
          typename C, std::size_t I, typename E>
struct int8_element<Ranges, Path, ElementPath, QIn, In, C, I, E, false, true>
    : int8_token_element<Ranges, Path, ElementPath, QIn, C, I, E> {};
template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format In, typename C, std::size_t I>
struct int8_elements<Ranges, Path, QIn, In, C, I, false> {
  static constexpr parameter_name path = point_name(Path, chain_name<C>(I));
  using type = typename int8_element<Ranges, Path, path, QIn, In, C, I, chain_element_type<I, C>>::type;
};

// A ranges table as `Ranges`, its options kept, every layer pinned to int8 activations: an int8 residual connection's
// inner layers, summed by the int8 ADD.
template <const auto& Ranges>
inline constexpr ranges_with_options int8_ranges = [] {
  if constexpr (requires { Ranges.int8_only; }) {
    return ranges_with_options{Ranges.first, Ranges.count, Ranges.options, true};
  } else {
    ranges_with_options pinned = with_options(Ranges, quantize_options{});
    pinned.int8_only = true;
    return pinned;
  }
}();

// A 16x8 residual connection's inner layer L at Path, fed int16 activations in QIn: its own form (a chain's elements
// choose theirs), with the conversion (TFLite's QUANTIZE) before it where it is int8 and after it where its output is,
// so that the int16 ADD sums two int16 matrices.
template <const auto& Ranges, parameter_name Path, quantization QIn, typename L>
constexpr auto quantize_int16_inner(const L& layer) noexcept {
  using plan = element_plan<Ranges, Path, QIn, activation_format::int16, L>;
  const auto body = quantize_layer<Ranges, Path, plan::input, plan::format>(layer);
  using body_type = std::remove_cvref_t<decltype(body)>;
  constexpr quantization q_body = body_type::output_quantization;
  using back = qconversion<q_body, converted_quantization(q_body, activation_format::int16), std::int16_t>;
  constexpr bool converts_back = output_format_of<body_type> != activation_format::int16;
  if constexpr (plan::converts && converts_back) {
    qchain<typename plan::conversion, body_type, back> chain{};
    slot<1>(chain.layers) = body;
    return chain;
  } else if constexpr (plan::converts) {
    qchain<typename plan::conversion, body_type> chain{};
    slot<1>(chain.layers) = body;
    return chain;
  } else if constexpr (converts_back) {
    qchain<body_type, back> chain{};
    slot<0>(chain.layers) = body;
    return chain;
  } else {
    return body;
  }
}

// A llama block's int8 form, each sublayer's from its own points at its path (its norms int8 whatever the options
// say: the llama layers have no 16x8 form); the sums' quantizations are the block's own points.
template <const auto& Ranges, parameter_name Path, quantization QIn, typename L>
[[nodiscard]] constexpr auto quantize_llama_block(const L& layer) noexcept {
  constexpr llama_block_points q = points_of<Ranges, Path, QIn, L>;
  constexpr activation_format int8 = activation_format::int8;
  const auto attention_norm =
      quantize_layer<Ranges, point_name(Path, points::attention_norm), QIn, int8>(layer.attention_norm);
  using norm1 = std::remove_cvref_t<decltype(attention_norm)>;
  const auto attention =
      quantize_layer<Ranges, point_name(Path, points::attention), norm1::output_quantization, int8>(layer.attention);
  const auto ffn_norm = quantize_layer<Ranges, point_name(Path, points::ffn_norm), q.sum1, int8>(layer.ffn_norm);
  using norm2 = std::remove_cvref_t<decltype(ffn_norm)>;
  const auto feed_forward =
      quantize_layer<Ranges, point_name(Path, points::feed_forward), norm2::output_quantization, int8>(
          layer.feed_forward);
  return qllama_block<std::remove_cvref_t<decltype(attention)>, std::remove_cvref_t<decltype(feed_forward)>, norm1,
                      norm2, q.sum1, q.output>{attention, feed_forward, attention_norm, ffn_norm};
}

// A llama model's int8 form: the token table alone (`qtoken_embedding`), the blocks' chain fed by it, the final norm
// and, untied, the head's qlinear; the logits in Q(Path) (the head's output, untied).
template <const auto& Ranges, parameter_name Path, typename L>
[[nodiscard]] constexpr auto quantize_llama_transformer(const L& layer) noexcept {
  constexpr activation_format int8 = activation_format::int8;
  const auto embedding =
      quantize_layer<Ranges, point_name(Path, points::tok_embeddings), quantization{1.0}, int8>(layer.tok_embeddings);
  using embedding_type = std::remove_cvref_t<decltype(embedding)>;
  const auto blocks =
      quantize_layer<Ranges, point_name(Path, points::layers), embedding_type::output_quantization, int8>(layer.layers);
  using blocks_type = std::remove_cvref_t<decltype(blocks)>;
  const auto norm =
      quantize_layer<Ranges, point_name(Path, points::norm), blocks_type::output_quantization, int8>(layer.norm);
  using norm_type = std::remove_cvref_t<decltype(norm)>;
  if constexpr (L::tied) {
    using table_type = decltype(embedding_type::tokens);
    detail::qtied_head<table_type::rows> head{};
    kernels::int8_column_starts<table_type::cols, table_type::rows>(
        embedding.tokens.elements, 0, 0, norm_type::output_quantization.zero_point,
        embedding_type::output_quantization.zero_point, head.column_starts);
    return qllama_transformer<L::layer_count, embedding_type, blocks_type, norm_type,
                              detail::qtied_head<table_type::rows>,
                              points_of<Ranges, Path, quantization{1.0}, L>.output>{embedding, blocks, norm, head};
  } else {
    const auto head =
        quantize_layer<Ranges, point_name(Path, points::output), norm_type::output_quantization, int8>(layer.output);
    using head_type = std::remove_cvref_t<decltype(head)>;
    return qllama_transformer<L::layer_count, embedding_type, blocks_type, norm_type, head_type,
                              head_type::output_quantization>{embedding, blocks, norm, head};
  }
}

// The int8 or 16x8 form of one float layer at Path, fed by QIn, its activations of format F (see the table of this
// header; only the layers with a 16x8 form are given int16).
template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format F, typename L>
constexpr auto quantize_layer(const L& layer) noexcept {
  if constexpr (is_chain<L>) {
    typename int8_list_info<typename int8_elements<Ranges, Path, QIn, F, L, 0>::type>::chain result{};
    fill_elements<Ranges, Path, QIn, F, 0, 0>(layer, result.layers);
    return result;
  } else if constexpr (is_encoder_layer<L>) {
    return quantize_encoder_layer<points_of<Ranges, Path, QIn, L, F>>(layer);
  } else if constexpr (is_llama_attention<L>) {
    return quantize_llama_attention<QIn, points_of<Ranges, Path, QIn, L>>(layer);
  } else if constexpr (is_llama_block<L>) {
    return quantize_llama_block<Ranges, Path, QIn>(layer);
  } else if constexpr (is_llama_transformer<L>) {
    return quantize_llama_transformer<Ranges, Path>(layer);
  } else if constexpr (is_decoder_layer<L>) {
    return quantize_decoder_layer<points_of<Ranges, Path, QIn, L>>(layer);
  } else if constexpr (is_attention_layer<L>) {
    constexpr attention_layer_points q = points_of<Ranges, Path, QIn, L, F>;
    const auto& w = layer.weights;
    constexpr std::size_t heads = std::remove_cvref_t<decltype(w)>::query_heads;
    const auto weights = quantize_attention_weights<heads, attention_projection_quantizations{
                                                               QIn, QIn, q.query, q.key, q.value, q.context, q.output,
                                                               q.weights, q.granularity, F}>(w);
    // Rationale: 16x8 attention has one softmax, TFLite's int16 one.
    constexpr softmax_method softmax = F == activation_format::int16 ? softmax_method::tflite : q.softmax;
    return qmulti_head_attention_layer<q.scores, std::remove_cvref_t<decltype(weights)>,
                                       typename attention_layer_mask<L>::type, softmax>{weights, {}};
  } else if constexpr (is_feed_forward<L>) {
    constexpr feed_forward_points q = points_of<Ranges, Path, QIn, L, F>;
    const auto linear1 = quantize_linear_as<F, QIn, q.hidden, q.weights, q.granularity>(layer.linear1);
    const auto activation = quantize_activation<q.hidden, q.activation, activation_value<F>>(layer.activation);
    const auto linear2 = quantize_linear_as<F, q.activation, q.output, q.weights, q.granularity>(layer.linear2);
    qchain<std::remove_cvref_t<decltype(linear1)>, std::remove_cvref_t<decltype(activation)>,
           std::remove_cvref_t<decltype(linear2)>>
        block{};
    slot<0>(block.layers) = linear1;
    slot<1>(block.layers) = activation;
    slot<2>(block.layers) = linear2;
    return block;
  } else if constexpr (is_gated_feed_forward<L>) {
    constexpr gated_feed_forward_points q = points_of<Ranges, Path, QIn, L, F>;
    const auto w1 = quantize_linear_as<F, QIn, q.w1, q.weights, q.granularity>(layer.w1);
    const auto w3 = quantize_linear_as<F, QIn, q.w3, q.weights, q.granularity>(layer.w3);
    const auto activation = quantize_activation<q.w1, q.activation, activation_value<F>>(layer.activation);
    const auto w2 = quantize_linear_as<F, q.product, q.output, q.weights, q.granularity>(layer.w2);
    return qgated_feed_forward<std::remove_cvref_t<decltype(w1)>, std::remove_cvref_t<decltype(w3)>,
                               std::remove_cvref_t<decltype(activation)>, std::remove_cvref_t<decltype(w2)>, q.product>{
        w1, w2, w3, activation};
  } else if constexpr (is_residual<L> && F == activation_format::int16) {
    const auto inner = quantize_int16_inner<Ranges, point_name(Path, points::inner), QIn>(layer.inner);
    qresidual<std::remove_cvref_t<decltype(inner)>, points_of<Ranges, Path, QIn, L, F>.output> block{};
    block.inner = inner;
    return block;
  } else if constexpr (is_residual<L>) {
    using inner_type = decltype(quantize_layer<int8_ranges<Ranges>, point_name(Path, points::inner), QIn>(layer.inner));
    qresidual<inner_type, points_of<Ranges, Path, QIn, L>.output> block{};
    block.inner = quantize_layer<int8_ranges<Ranges>, point_name(Path, points::inner), QIn>(layer.inner);
    return block;
  } else if constexpr (is_position_embedding<L>) {  // after something other than a token embedding
    constexpr position_embedding_points q = points_of<Ranges, Path, QIn, L, F>;
    return quantize_position_embedding<q.weight, q.output, activation_value<F>>(layer);
  } else if constexpr (is_class_token<L>) {
    return quantize_class_token<QIn, points_of<Ranges, Path, QIn, L, F>.output, activation_value<F>>(layer);
  } else if constexpr (is_patch_embedding<L>) {
    constexpr linear_points q = points_of<Ranges, Path, QIn, L>;
    return quantize_patch_embedding<QIn, q.output, q.weights, q.granularity>(layer);
  } else if constexpr (std::is_same_v<L, class_token_pool>) {
    return qclass_token_pool<QIn, activation_value<F>>{};
  } else if constexpr (std::is_same_v<L, mean_pool>) {
    return qmean_pool<QIn, points_of<Ranges, Path, QIn, L>.output>{};
  } else if constexpr (is_token_embedding<L>) {  // alone: a chain quantizes one with positions after it as a pair
    return quantize_token_embedding<points_of<Ranges, Path, QIn, L>.weight>(layer);
  } else if constexpr (is_float_layer_norm<L>) {
    return quantize_layer_norm<QIn, points_of<Ranges, Path, QIn, L, F>.output, activation_value<F>>(layer);
  } else if constexpr (is_float_rms_norm<L>) {
    return quantize_rms_norm<QIn, points_of<Ranges, Path, QIn, L, F>.output, activation_value<F>>(layer);
  } else if constexpr (is_float_linear<L>) {
    constexpr linear_points q = points_of<Ranges, Path, QIn, L, F>;
    static_assert(
        (shape_error::int16_activations_take_int8_weights<op::quantize, shape_error::weight_format_constant<q.weights>,
                                                          shape_error::activation_format_constant<F>>::check(),
         true));
    return quantize_linear_as<F, QIn, q.output, q.weights, q.granularity>(layer);
  } else if constexpr (activation_layer_type<L>) {
    return quantize_activation<QIn, points_of<Ranges, Path, QIn, L, F>.output, activation_value<F>>(layer);
  } else if constexpr (provides_int8_form<L>) {  // a layer of one's own: its int8_form (its output probed by quantize)
    return int8_form_hook::call(layer, int8_context<Ranges, Path, QIn>{});
  } else {
    return no_int8_form<QIn>{};  // refused by quantize's rules before this is reached
  }
}

// Writes the int8 forms of a chain's elements I to the end into elements J to the end of `out`, the storage of the
// qchain `int8_elements` gives, each where it lives, by one assignment. A nested chain (a sequential member) has no
// qchain of its own: its layers are spliced into this one's, one level less between the model and a weight.
// Rationale: the types and the values apart. Building the values as the types are built, by prepending to tuples,
// copies every layer once per element after it, and in a constant expression each copy is interpreted element by
// element (the int8 sorter's proof took a fifth longer).
template <const auto& Ranges, parameter_name Path, quantization QIn, activation_format In, std::size_t I, std::size_t J,
          typename C, typename Tuple>
constexpr void fill_elements(const C& chain, Tuple& out) noexcept {
  if constexpr (I < chain_length<C>()) {
    using element = chain_element_type<I, C>;
    constexpr parameter_name path = point_name(Path, chain_name<C>(I));
    auto& target = slot<J>(out);
    using target_type = std::remove_cvref_t<decltype(target)>;
    if constexpr (is_token_embedding<element>) {
      if constexpr (token_pair_at<C, I>) {
        using pair = int8_token_element<Ranges, Path, path, QIn, C, I, element>;
        target = quantize_embedding<points_of<Ranges, path, QIn, element, pair::format>.weight, pair::q.weight,
                                    pair::q.output, activation_value<pair::format>>(chain_element<I>(chain),
                                                                                    chain_element<I + 1>(chain));
        fill_elements<Ranges, Path, target_type::output_quantization, output_format_of<target_type>, I + 2, J + 1>(
            chain, out);
      } else {
        target = quantize_token_embedding<points_of<Ranges, path, QIn, element>.weight>(chain_element<I>(chain));
        fill_elements<Ranges, Path, target_type::output_quantization, activation_format::int8, I + 1, J + 1>(chain,
                                                                                                             out);
      }
    } else if constexpr (is_chain<element>) {
      constexpr std::size_t count =
          int8_list_info<typename int8_elements<Ranges, path, QIn, In, element, 0>::type>::size;
      fill_elements<Ranges, path, QIn, In, 0, J>(chain_element<I>(chain), out);
      using last = std::remove_cvref_t<decltype(slot<J + count - 1>(out))>;
      fill_elements<Ranges, Path, last::output_quantization, output_format_of<last>, I + 1, J + count>(chain, out);
    } else {
      // A conversion before the element (element_plan) holds nothing: its slot stays as it is.
      using plan = element_plan<Ranges, path, QIn, In, element>;
      constexpr std::size_t at = J + (plan::converts ? 1 : 0);
      auto& layer = slot<at>(out);
      using layer_type = std::remove_cvref_t<decltype(layer)>;
      layer = quantize_layer<Ranges, path, plan::input, plan::format>(chain_element<I>(chain));
      fill_elements<Ranges, Path, layer_type::output_quantization, output_format_of<layer_type>, I + 1, at + 1>(chain,
                                                                                                                out);
    }
  }
}

// The index of the first member of model M whose output range `Ranges` lacks (the member count when it has them
// all; 0 for a sequential, whose layers are named by index).
template <const auto& Ranges, typename M>
[[nodiscard]] constexpr std::size_t first_member_without_range() noexcept {
  if constexpr (Model<M>) {
    for (std::size_t i = 0; i < members<M>::count; ++i) {
      bool found = false;
      for (const named_range& entry : Ranges) found = found || entry.name == members<M>::names[i];
      if (!found) return i;
    }
    return members<M>::count;
  } else {
    return 0;
  }
}
// The length of member I's name (0 past the last member, or for a sequential).
template <typename M, std::size_t I>
[[nodiscard]] constexpr std::size_t member_name_length() noexcept {
  if constexpr (Model<M>) {
    if constexpr (I < members<M>::count) return members<M>::names[I].size();
  }
  return 0;
}
template <const auto& Ranges, typename M, std::size_t I = first_member_without_range<Ranges, M>(),
          typename Chars = std::make_index_sequence<member_name_length<M, I>()>>
struct ranges_member_rule_of;
template <const auto& Ranges, typename M, std::size_t I, std::size_t... C>
struct ranges_member_rule_of<Ranges, M, I, std::index_sequence<C...>> {
  using type = shape_error::ranges_must_hold_every_member<
      op::quantize, M, point<members<M>::names[Model<M> && I < chain_length<M>() ? I : 0][C]...>,
      !Model<M> || I == chain_length<M>()>;
};
template <const auto& Ranges, typename M>
using ranges_member_rule = typename ranges_member_rule_of<Ranges, M>::type;

// The activation format of a model's input: its first leaf's (a nested chain's first element's), so that a model
// that starts in 16x8 takes int16 input with no conversion before it.
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr activation_format first_format(const parameter_name& path) noexcept {
  if constexpr (is_chain<L>) {
    return first_format<Ranges, chain_element_type<0, L>>(point_name(path, chain_name<L>(0)));
  } else {
    return layer_format<L>(Ranges, path.view(), activation_format::int8);
  }
}
template <const auto& Ranges, typename L>
inline constexpr activation_format input_format = first_format<Ranges, L>(parameter_name{});
}  // namespace detail

/// The int8 form of a float model (a `ctattn::model` or a `ctattn::sequential`), every quantization read by name
/// from `Ranges`, the ranges its calibration recorded (see this header). Constexpr: the compiler quantizes a
/// constexpr model, and the result lives in flash.
///
/// | operand  | what                                                                    |
/// |----------|-------------------------------------------------------------------------|
/// | `Ranges` | a `ctattn::named_range` array with static storage (a generated header's) |
/// | `Options`| `quantize_options` (the softmax method, the weight format), by default `{}` |
/// | `model`  | the float model                                                         |
/// | result   | a `qchain` of int8 layers (`ctattn::quantized_model<M, Ranges>`)          |
///
/// Example: `constexpr auto int8_weights = ctattn::quantize<toy::sorter_ranges>(sorter_weights);`
template <const auto& Ranges, quantize_options Options = quantize_options{}, typename M>
  requires(Model<M> || detail::is_sequential<M> || detail::misdeclared_model<M>)
[[nodiscard]] constexpr auto quantize(const M& model) noexcept {
  if constexpr (Options != quantize_options{}) {
    return quantize<with_quantize_options<Ranges, Options>>(model);
  } else if constexpr (!detail::model_base_rule<op::quantize, M>::check() ||
                       !detail::ranges_member_rule<Ranges, M>::check()) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else if constexpr (!detail::first_broken<typename detail::quantize_rules_of<M>::type>::check()) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else if constexpr (constexpr parameter_name missing = detail::first_missing_point<Ranges, M>;
                       !detail::ranges_hold_point<missing>(std::make_index_sequence<missing.length>{})) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else if constexpr (!detail::override_rule<Ranges, M>::check()) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else if constexpr (!detail::override_rule<Ranges, M, true>::check()) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else if constexpr (!detail::int16_weights_rule<Ranges, M>::check()) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else if constexpr (detail::is_token_embedding<detail::chain_element_type<0, M>>) {
    return detail::quantize_layer<Ranges, parameter_name{}, quantization{1.0}>(model);
  } else {
    constexpr parameter_name input = detail::point_name(parameter_name{}, points::input);
    constexpr activation_format format = detail::input_format<Ranges, M>;
    return detail::quantize_layer<Ranges, parameter_name{}, detail::quantization_at<Ranges, input, format>, format>(
        model);
  }
}

namespace detail {
// The int8 form of a single float layer as a one-layer qchain (`quantize`'s second form).
// The input quantization of a single layer of type L quantized in format F (a token embedding takes ids).
template <const auto& Ranges, typename L, activation_format F>
[[nodiscard]] constexpr quantization single_layer_input() noexcept {
  if constexpr (detail::is_token_embedding<L> || detail::is_llama_transformer<L>) {
    return quantization{1.0};
  } else {
    return detail::quantization_at<Ranges, detail::point_name(parameter_name{}, points::input), F>;
  }
}
template <const auto& Ranges, typename L>
[[nodiscard]] constexpr auto quantize_single_layer(const L& layer) noexcept {
  constexpr activation_format format = layer_format<L>(Ranges, {}, activation_format::int8);
  constexpr quantization input = single_layer_input<Ranges, L, format>();
  if constexpr (is_llama_transformer<L>) {
    // Rationale: the model itself, not a qchain of it: its `step`, `decode_state` and `decode_footprint` are what a
    // decoder is used by, and a chain has none of them.
    return detail::quantize_layer<Ranges, parameter_name{}, input, format>(layer);
  } else {
    using int8_layer = decltype(detail::quantize_layer<Ranges, parameter_name{}, input, format>(layer));
    qchain<int8_layer> result{};
    detail::slot<0>(result.layers) = detail::quantize_layer<Ranges, parameter_name{}, input, format>(layer);
    return result;
  }
}
}  // namespace detail

/// The int8 form of a single float layer as the whole model (an exported `nn.TransformerEncoderLayer`, say): a
/// `qchain` of its one int8 layer, its points read from `Ranges` without a path (`norm1`, `query`, ...), its output
/// as `output` and its input as `input`, the names `ctattn::record_ranges` gives a single layer.
///
/// Example: `constexpr auto int8_layer = ctattn::quantize<layer_ranges>(encoder_layer_weights);`
template <const auto& Ranges, quantize_options Options = quantize_options{}, typename L>
  requires(!Model<L> && !detail::is_sequential<L> && detail::has_int8_form<L>)
[[nodiscard]] constexpr auto quantize(const L& layer) noexcept {
  if constexpr (Options != quantize_options{}) {
    return quantize<with_quantize_options<Ranges, Options>>(layer);
  } else if constexpr (!detail::first_broken<detail::int8_form_rules<L>>::check()) {
    return detail::no_int8_form<quantization{1.0}>{};
  } else {
    return detail::quantize_single_layer<Ranges>(layer);
  }
}

/// The type `ctattn::quantize<Ranges, Options>` gives for a float model of type M.
///
/// Example: `using int8_sorter = ctattn::quantized_model<toy::sorter, toy::sorter_ranges>;`
template <typename M, const auto& Ranges, quantize_options Options = quantize_options{}>
using quantized_model = decltype(quantize<Ranges, Options>(std::declval<const M&>()));

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_MODEL_HPP
