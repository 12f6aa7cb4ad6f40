// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_LLAMA_HPP
#define CTATTN_LAYERS_LLAMA_HPP

/// \file
/// The layers of a llama-style decoder, with the parameter names of llama2.c's `model.py` (Meta's reference names):
/// `llama_attention` (grouped-query self-attention with rotary positions, causal: `wq`, `wk`, `wv`, `wo`) and
/// `llama_block` (pre-norm RMSNorm blocks around it and a SwiGLU feed-forward block: `attention_norm`,
/// `ffn_norm`, `feed_forward.w1`, `w2`, `w3`). Both run a whole sequence (`forward`) or one token over a key/value
/// cache (`step`), with the same bits under exact arithmetic.
///
/// | entity                                                      | PyTorch (llama2.c `model.py`)  |
/// |-------------------------------------------------------------|--------------------------------|
/// | `llama_attention<T, DModel, Heads, KVHeads, Positions>`     | `Attention`                    |
/// | `llama_block<T, DModel, Heads, KVHeads, Hidden, Positions>` | `TransformerBlock`             |
/// | `llama_transformer<T, Vocabulary, DModel, Layers, ...>`     | `Transformer` (tied or untied head) |
/// | `greedy_token(logits)`                                      | `torch.argmax(logits, dim=-1)` |
/// | `generate_greedy(model, state, logits, prompt, ids, on_step)` | llama2.c's `generate` (greedy) |

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <boost/hana/tuple.hpp>

#include "ctattn/attention/kv_cache.hpp"
#include "ctattn/attention/multi_head.hpp"
#include "ctattn/layers/activation.hpp"
#include "ctattn/layers/detail/blocks.hpp"
#include "ctattn/layers/embedding.hpp"
#include "ctattn/layers/feed_forward.hpp"
#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/linear.hpp"
#include "ctattn/layers/norm.hpp"
#include "ctattn/layers/sequential.hpp"
#include "ctattn/layers/transformer.hpp"
#include "ctattn/matrix/with_extents.hpp"
#include "ctattn/position/rotary.hpp"

namespace ctattn {

namespace op {
/// The operation tag of `llama_attention` and `llama_block` in diagnostics.
struct llama_attention {};
}  // namespace op

namespace detail {
// The observer of a plain `llama_attention::forward`: it looks at nothing.
struct no_attention_observer {
  template <typename Q, typename K, typename V>
  constexpr void projected(const Q&, const K&, const V&) const noexcept {}
  template <typename Q, typename K, typename C>
  constexpr void attended(const Q&, const K&, const C&) const noexcept {}
};

// The rules of llama attention's configuration, in the order a reader fixes them: the heads split d_model, the
// key/value heads divide the query heads, a head's width is even (its columns rotate in pairs), and the rotary
// table has a position.
template <std::size_t Width, std::size_t Heads, std::size_t KeyValueHeads, std::size_t Positions, std::size_t Base>
using llama_attention_rules = rule_list<
    shape_error::heads_must_divide_model_width<op::llama_attention, count<Heads>, dim<unnamed, Width>>,
    shape_error::key_value_heads_must_divide_query_heads<op::llama_attention, count<KeyValueHeads>, count<Heads>>,
    shape_error::dimension_must_be_even<op::llama_attention, dim<unnamed, (Heads == 0 ? 0 : Width / Heads)>>,
    shape_error::count_must_be_positive<op::llama_attention, count<Positions>>,
    shape_error::base_must_be_larger_than_one<op::llama_attention, count<Base>>>;
}  // namespace detail

/// Grouped-query self-attention with rotary positions, causal, as llama2.c's `Attention` and Hugging Face's
/// `LlamaAttention` compute it (no biases): for a sequence x at positions 0 .. n-1,
///
///     Q = rope(x wq^T), K = rope(x wk^T), V = x wv^T,
///     head h: softmax(Q_h K_g^T / sqrt(head_dim) + causal) V_g with g = h / (Heads / KeyValueHeads),
///     y = concat(heads) wo^T
///
/// each head's columns of Q and K rotated by its position with `Rotary`'s pairing (`interleaved`: llama2.c and
/// Meta's checkpoints; `rotate_half`: Hugging Face's).
///
/// | operand / member | shape / meaning                                                       |
/// |------------------|-----------------------------------------------------------------------|
/// | input, result    | n x DModel, n <= Positions                                            |
/// | `wq`, `wo`       | DModel -> DModel, DModel -> DModel (Heads heads of head_dim = DModel / Heads) |
/// | `wk`, `wv`       | DModel -> KeyValueHeads x head_dim                                    |
/// | `rotary`         | `rotary_table<T, Positions, head_dim, Base>`, computed by the compiler (static, in flash) |
/// | `cache_type<C>`  | `kv_cache<T, C, KeyValueHeads x head_dim>`: C tokens' rotated keys and values |
///
/// Rules: Heads divides DModel (`heads_must_divide_model_width`), KeyValueHeads divides Heads
/// (`key_value_heads_must_divide_query_heads`), head_dim is even (`dimension_must_be_even`), Positions > 0, Base
/// > 1; the input's width and element type (`input_width_must_match_layer`); n <= Positions and a cache's capacity
/// <= Positions (`sequence_must_fit_position_table`); a mask among the options (a key padding) fits n x n and adds
/// to the causal one.
///
/// The compiler computes the rotary table: Positions x head_dim / 2 cosines and sines. Clang 14's default budget of
/// constant-evaluation steps holds about 2,400 of them (512 positions of head_dim 8, stories260K's); beyond, build
/// with `-fconstexpr-steps=` raised (stories15M's 256 positions of 48 need 4,000,000). GCC's default holds more.
///
/// Parameters, in llama2.c's `state_dict` order: `wq.weight`, `wk.weight`, `wv.weight`, `wo.weight`.
///
/// Example:
/// \code
///   ctattn::llama_attention<float, 64, 8, 4, 512> attention{};   // stories260K's: 8 heads over 4, 512 positions
///   const auto y = ctattn::forward(attention, x);                 // x, y: n x 64
/// \endcode
template <typename T, auto DModel, std::size_t Heads, std::size_t KeyValueHeads, std::size_t Positions,
          rotary_layout Rotary = rotary_layout::interleaved, std::size_t Base = 10000, WeightLayout Layout = out_by_in>
struct llama_attention {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<DModel>;
  static constexpr std::size_t width = extent_size(input_extent);
  using rules = detail::llama_attention_rules<width, Heads, KeyValueHeads, Positions, Base>;
  static_assert((detail::first_broken<rules>::check(), true));

  static constexpr std::size_t heads = Heads;
  static constexpr std::size_t key_value_heads = KeyValueHeads;
  static constexpr std::size_t positions = Positions;
  static constexpr rotary_layout rotary_pairs = Rotary;
  // Rationale: with a broken rule the shapes fall back to a valid head of 2 columns, so that the rule's sentence is
  // the only error.
  static constexpr std::size_t head_dim = rules_hold<rules> ? width / Heads : 2;
  static constexpr std::size_t key_value_width = rules_hold<rules> ? KeyValueHeads * head_dim : 2;
  /// The grouped-query weights' shape, which the attention kernels and the footprint read (not held).
  using weights_shape =
      grouped_query_attention_weights<T, rules_hold<rules> ? Heads : 1, rules_hold<rules> ? KeyValueHeads : 1, DModel,
                                      rules_hold<rules> ? head_dim : width, Layout>;
  using table_type = rotary_table<T, (Positions == 0 ? 1 : Positions), head_dim, (Base > 1 ? Base : 2)>;
  /// The rotations by position, computed once by the compiler.
  static constexpr table_type rotary =
      make_rotary_table<T, (Positions == 0 ? 1 : Positions), head_dim, (Base > 1 ? Base : 2)>();

  /// The key/value cache of `step` for `Capacity` tokens: their rotated keys and their values.
  template <std::size_t Capacity>
  using cache_type = kv_cache<T, Capacity, key_value_width>;

  // Rationale: the four projections as members of their own (not a `grouped_query_attention_weights`), so that the
  // members have llama2.c's names, as the layers of this library keep PyTorch's; `weights_shape` gives the kernels
  // the heads' shape.
  linear<T, DModel, width, Layout, false> wq{};
  linear<T, DModel, key_value_width, Layout, false> wk{};
  linear<T, DModel, key_value_width, Layout, false> wv{};
  linear<T, width, DModel, Layout, false> wo{};

  /// The rules of a forward on an X with `Options` (`forward`'s and `observed_forward`'s).
  template <FixedMatrix X, typename... Options>
  using input_rules_of =
      rule_list<detail::layer_input_rules<llama_attention, X>,
                shape_error::sequence_must_fit_position_table<op::llama_attention, dim_of<X::row_extent>,
                                                              dim<unnamed, table_type::positions>>,
                shape_error::options_must_be_one_of_each_kind<op::llama_attention, Options...>,
                detail::mask_rules<op::llama_attention, T, X::row_extent, X::row_extent,
                                   typename detail::call_options<Options...>::mask_type>>;

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    using input_rules = input_rules_of<X, Options...>;
    basic_matrix<T, X::row_extent, output_extent> y{};
    if constexpr (rules_hold<rules>) {
      if constexpr (detail::first_broken<input_rules>::check()) {
        attend_into(y, detail::no_attention_observer{}, x, options...);
      }
    }
    return y;
  }

  /// `forward` with an observer of its intermediates: `observer.projected(q, k, v)` on the projections, before the
  /// rotation, and `observer.attended(q, k, concat)` on the rotated queries and keys and the heads side by side
  /// (W_O's input), before W_O. `ctattn::record_ranges` records the int8 form's points so
  /// (ctattn/quantized/ranges.hpp); the result is `forward`'s, bit for bit.
  ///
  /// | operand    | shape / meaning                                  |
  /// |------------|--------------------------------------------------|
  /// | `observer` | an object with `projected` and `attended`        |
  /// | `x`, result | as `forward`'s: n x DModel                      |
  ///
  /// Example:
  /// \code
  ///   struct counter {
  ///     int calls = 0;
  ///     constexpr void projected(const auto&, const auto&, const auto&) { ++calls; }
  ///     constexpr void attended(const auto&, const auto&, const auto&) { ++calls; }
  ///   };
  ///   counter seen{};
  ///   const auto y = ctattn::llama_attention<float, 64, 8, 4, 512>{}.observed_forward(seen, x);   // seen.calls == 2
  /// \endcode
  template <typename Observer, FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto observed_forward(Observer&& observer, const X& x,
                                                const Options&... options) const noexcept {
    using input_rules = input_rules_of<X, Options...>;
    basic_matrix<T, X::row_extent, output_extent> y{};
    if constexpr (rules_hold<rules>) {
      if constexpr (detail::first_broken<input_rules>::check()) {
        attend_into(y, observer, x, options...);
      }
    }
    return y;
  }

  /// One token of decoding: `x` is the token's row at position `cache.length`; its query and key are rotated
  /// there, its key and value appended to `cache`, and its output row written into `out`, row `cache.length` of
  /// `forward` over the whole sequence (the same bits with exact arithmetic). False, with nothing changed, when
  /// the cache is full. A mask among the options adds to the cache's own (a key padding, an ALiBi row).
  ///
  /// | operand | shape                                  |
  /// |---------|----------------------------------------|
  /// | `x`     | 1 x DModel                             |
  /// | `cache` | `cache_type<Capacity>`, Capacity <= Positions |
  /// | `out`   | 1 x DModel                             |
  template <FixedMatrix X, KeyValueCache Cache, typename... Options>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, basic_matrix<T, std::size_t{1}, output_extent>& out,
                                    const Options&... options) const noexcept {
    using step_rules = rule_list<
        shape_error::must_be_a_single_row<op::llama_attention, dim_of<X::row_extent>>,
        detail::layer_input_rules<llama_attention, X>,
        shape_error::element_types_must_match<op::llama_attention, typename Cache::value_type, T>,
        shape_error::columns_must_match<op::llama_attention, dim_of<Cache::key_extent>, dim<unnamed, key_value_width>>,
        shape_error::columns_must_match<op::llama_attention, dim_of<Cache::value_extent>,
                                        dim<unnamed, key_value_width>>,
        shape_error::sequence_must_fit_position_table<op::llama_attention, dim<unnamed, Cache::capacity>,
                                                      dim<unnamed, table_type::positions>>>;
    if constexpr (rules_hold<rules>) {
      if constexpr (detail::first_broken<step_rules>::check()) {
        constexpr arithmetic a = detail::arithmetic_of<Options...>;
        if (cache.full()) return false;
        const std::size_t position = cache.length;
        auto q = detail::projected<a>(x, wq);
        auto k = detail::projected<a>(x, wk);
        detail::rotate_heads<Rotary, head_dim>(q, rotary, position);
        detail::rotate_heads<Rotary, head_dim>(k, rotary, position);
        (void)cache.append(k, detail::projected<a>(x, wv));
        basic_matrix<T, std::size_t{1}, width> concat{};
        basic_matrix<T, std::size_t{1}, Cache::capacity>* none = nullptr;
        detail::attend_heads<a, false, weights_shape>(q, cache.keys, cache.values, detail::step_mask(cache, options...),
                                                      concat, none);
        detail::project_rows<a>(out, concat, wo);
      }
    }
    return true;
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): Q, K, V, the heads' concatenation and the
  /// output on the stack, the kernel's scratch (as `multi_head_attention_layer`'s); the layer's bytes include the
  /// rotary table.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr footprint attention = multi_head_attention_footprint<X, X, weights_shape, 1>;
    footprint f = detail::call_footprint<llama_attention, X, basic_matrix<T, X::row_extent, output_extent>>(
        attention.workspace_bytes + attention.output_bytes + attention.stack_bytes);
    f.weight_bytes += sizeof(table_type);
    return f;
  }

  /// The footprint of one `step` over a cache of `Capacity` tokens: the token's query, key, value and the heads'
  /// concatenation (a row each) and the kernel's scratch for a row of Capacity scores on the stack; the cache is
  /// the caller's (`sizeof(cache_type<Capacity>)`).
  template <std::size_t Capacity>
  [[nodiscard]] static constexpr footprint step_footprint() noexcept {
    using row = basic_matrix<T, std::size_t{1}, output_extent>;
    footprint f{sizeof(llama_attention) + sizeof(table_type), sizeof(row), sizeof(row), 0, 0};
    f.stack_bytes = 2 * sizeof(basic_matrix<T, std::size_t{1}, width>) +
                    2 * sizeof(basic_matrix<T, std::size_t{1}, key_value_width>) +
                    detail::kernel_stack_bytes<T, 1, Capacity, head_dim>;
    return f;
  }

  template <detail::SameLayer<llama_attention> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("wq", self.wq), sublayer("wk", self.wk), sublayer("wv", self.wv),
                                   sublayer("wo", self.wo));
  }
  /// Its settings (ctattn::for_each_setting): `n_heads` and `n_kv_heads`, llama2.c's `ModelArgs` names.
  friend constexpr auto settings(const llama_attention&) noexcept {
    return std::array{setting("n_heads", Heads), setting("n_kv_heads", KeyValueHeads)};
  }
  friend constexpr bool operator==(const llama_attention&, const llama_attention&) = default;

 private:
  // The forward's computation into y, the observer shown its intermediates; the rules are the caller's.
  template <typename Y, typename Observer, typename X, typename... Options>
  constexpr void attend_into(Y& y, Observer&& observer, const X& x, const Options&... options) const noexcept {
    constexpr arithmetic a = detail::arithmetic_of<Options...>;
    auto q = detail::projected<a>(x, wq);
    auto k = detail::projected<a>(x, wk);
    const auto v = detail::projected<a>(x, wv);
    observer.projected(q, k, v);
    detail::rotate_heads<Rotary, head_dim>(q, rotary, 0);
    detail::rotate_heads<Rotary, head_dim>(k, rotary, 0);
    basic_matrix<T, X::row_extent, width> concat{};
    basic_matrix<T, X::row_extent, X::row_extent>* none = nullptr;
    detail::attend_heads<a, false, weights_shape>(q, k, v, combine_masks(causal, detail::mask_of(options...)), concat,
                                                  none);
    observer.attended(q, k, concat);
    detail::project_rows<a>(y, concat, wo);
  }
};

/// A llama-style decoder block, llama2.c's `TransformerBlock` (Meta's reference): pre-norm RMSNorm residual blocks
/// around `llama_attention` and a SwiGLU feed-forward block,
///
///     h = x + attention(attention_norm(x));  out = h + feed_forward(ffn_norm(h))
///
/// with feed_forward(x) = w2(silu(w1 x) * w3 x) (no biases).
///
/// | operand / member                 | shape / meaning                                       |
/// |----------------------------------|-------------------------------------------------------|
/// | input, result                    | n x DModel, n <= Positions                            |
/// | `attention`                      | `llama_attention<T, DModel, Heads, KeyValueHeads, Positions, Rotary, Base>` |
/// | `feed_forward`                   | `gated_feed_forward<T, DModel, Hidden>`: `w1`, `w3` DModel -> Hidden, `w2` back |
/// | `attention_norm`, `ffn_norm`     | `rms_norm<T, DModel>`, eps 1e-5 (llama2.c's `norm_eps`) unless set |
/// | `cache_type<C>`                  | the attention's `kv_cache` for C tokens               |
///
/// Rules: the attention's (heads, key/value heads, even head width, positions) and the input's width and type.
/// Parameters, in `state_dict` order: attention.wq.weight, attention.wk.weight, attention.wv.weight,
/// attention.wo.weight, feed_forward.w1.weight, feed_forward.w2.weight, feed_forward.w3.weight,
/// attention_norm.weight, ffn_norm.weight.
///
/// Example:
/// \code
///   ctattn::llama_block<float, 64, 8, 4, 172, 512> block{};   // stories260K's blocks
///   const auto y = ctattn::forward(block, x);                 // x, y: n x 64
///   ctattn::llama_block<float, 64, 8, 4, 172, 512>::cache_type<512> cache{};
///   ctattn::matrix<float, 1, 64> row{};
///   if (!block.step(x_t, cache, row)) { /* the cache is full */ }
/// \endcode
template <typename T, auto DModel, std::size_t Heads, std::size_t KeyValueHeads, auto Hidden, std::size_t Positions,
          rotary_layout Rotary = rotary_layout::interleaved, std::size_t Base = 10000, WeightLayout Layout = out_by_in>
struct llama_block {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<DModel>;
  using attention_type = llama_attention<T, DModel, Heads, KeyValueHeads, Positions, Rotary, Base, Layout>;
  using feed_forward_type = gated_feed_forward<T, DModel, Hidden, silu, Layout, false>;
  using norm_type = rms_norm<T, DModel>;
  template <std::size_t Capacity>
  using cache_type = typename attention_type::template cache_type<Capacity>;
  /// llama2.c's default `norm_eps`.
  static constexpr T default_eps = static_cast<T>(1e-5);

  attention_type attention{};
  feed_forward_type feed_forward{};
  norm_type attention_norm{.eps = default_eps};
  norm_type ffn_norm{.eps = default_eps};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    using result = basic_matrix<T, X::row_extent, output_extent>;
    if constexpr (detail::first_broken<detail::layer_input_rules<llama_block, X>>::check()) {
      const result input = with_extents<X::row_extent, output_extent>(x);
      return detail::residual_blocks<true>(
          blocks(options...), input,
          [&](const result& in) { return detail::sublayer_forward(attention, in, options...); },
          [&](const result& in) { return detail::sublayer_forward(feed_forward, in, options...); });
    } else {
      return result{};
    }
  }

  /// One token of decoding (`llama_attention::step` inside the block's flow): writes the token's output row into
  /// `out`, row `cache.length` of `forward` over the whole sequence. False, with nothing changed, when the cache is
  /// full.
  ///
  /// | operand | shape                         |
  /// |---------|-------------------------------|
  /// | `x`     | 1 x DModel                    |
  /// | `cache` | `cache_type<Capacity>`        |
  /// | `out`   | 1 x DModel                    |
  template <FixedMatrix X, KeyValueCache Cache, typename... Options>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, basic_matrix<T, std::size_t{1}, output_extent>& out,
                                    const Options&... options) const noexcept {
    using row = basic_matrix<T, std::size_t{1}, output_extent>;
    if (cache.full()) return false;
    row attended{};
    out = detail::residual_blocks<true>(
        blocks(options...), with_extents<std::size_t{1}, output_extent>(x),
        [&](const row& in) {
          (void)attention.step(in, cache, attended, options...);
          return attended;
        },
        [&](const row& in) { return ctattn::forward(feed_forward, in, options...); });
    return true;
  }

  /// The steps of the block's two residual blocks (ctattn/layers/detail/blocks.hpp): attention_norm or ffn_norm,
  /// and the sum, with the call's arithmetic.
  template <typename... Options>
  [[nodiscard]] constexpr auto blocks(const Options&...) const noexcept {
    return detail::float_block_steps<detail::arithmetic_of<Options...>>(attention_norm, ffn_norm);
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): on the stack, six n x DModel results (the
  /// input and the first block's output; per block the sublayer's result and a norm's or a sum's) and the deepest
  /// sublayer's stack, as `transformer_encoder_layer`'s.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = basic_matrix<T, X::row_extent, output_extent>;
    const std::size_t deepest = detail::largest(layer_footprint<attention_type, result>.stack_bytes,
                                                layer_footprint<feed_forward_type, result>.stack_bytes,
                                                layer_footprint<norm_type, result>.stack_bytes);
    footprint f = detail::call_footprint<llama_block, X, result>(6 * sizeof(result) + deepest);
    f.weight_bytes += sizeof(typename attention_type::table_type);
    return f;
  }

  /// The footprint of one `step` over a cache of `Capacity` tokens: `footprint_of`'s six results, a row each, and
  /// the deepest of the attention's step (with the row it writes) and the feed-forward block on a row.
  template <std::size_t Capacity>
  [[nodiscard]] static constexpr footprint step_footprint() noexcept {
    using row = basic_matrix<T, std::size_t{1}, output_extent>;
    const std::size_t deepest = detail::largest(
        attention_type::template step_footprint<Capacity>().stack_bytes + sizeof(row),
        layer_footprint<feed_forward_type, row>.stack_bytes, layer_footprint<norm_type, row>.stack_bytes);
    return {sizeof(llama_block) + sizeof(typename attention_type::table_type), sizeof(row), sizeof(row), 0,
            6 * sizeof(row) + deepest};
  }

  template <detail::SameLayer<llama_block> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("attention", self.attention), sublayer("feed_forward", self.feed_forward),
                                   sublayer("attention_norm", self.attention_norm),
                                   sublayer("ffn_norm", self.ffn_norm));
  }
  friend constexpr bool operator==(const llama_block&, const llama_block&) = default;
};

namespace detail {
// `sequential<L, L, ...>`, N times L.
template <typename L, std::size_t... I>
auto repeated_sequential_of(std::index_sequence<I...>) -> sequential<std::enable_if_t<(I >= 0), L>...>;
template <typename L, std::size_t N>
using repeated_sequential = decltype(repeated_sequential_of<L>(std::make_index_sequence<N>{}));

// Whether `token` is an id of a vocabulary of `vocabulary` ids: what a decoding step checks before it changes
// anything (llama_transformer, qllama_transformer) and greedy decoding checks a prompt's ids with.
// Rationale: compared in the widest unsigned type, so that no id wraps into the vocabulary on a 32-bit core.
template <std::integral I>
  requires(!std::same_as<I, bool>)
[[nodiscard]] constexpr bool id_inside_vocabulary(I token, std::size_t vocabulary) noexcept {
  if constexpr (std::is_signed_v<I>) {
    if (token < 0) return false;
  }
  return static_cast<std::uintmax_t>(token) < vocabulary;
}

// The output head of a model whose head is its token embedding's table (`Tied`): it holds nothing.
// Rationale: an empty member rather than a second copy of the table, so that a tied model keeps its weights once in
// flash and its parameters list them once (`tok_embeddings.weight`), as the exporter writes the file.
struct tied_head {
  friend constexpr bool operator==(const tied_head&, const tied_head&) = default;
};
}  // namespace detail

/// What a decoding step of a whole model did: the token was decoded, or nothing changed because the cache is full
/// or the token id is outside the vocabulary (ids from outside the program: a prompt, a file, a sampler).
enum class decode_status { decoded, cache_full, token_outside_vocabulary };

/// A llama-style language model, llama2.c's `Transformer` (Meta's reference layout): a token embedding, `Layers`
/// `llama_block`s, a final RMSNorm and an output head, tied to the embedding (llama2.c's default:
/// `output.weight` is `tok_embeddings.weight`) or a `linear` of its own.
///
///     x = tok_embeddings(ids);  x = layers(x);  logits = output(norm(x))
///
/// | operand / member   | shape / meaning                                                        |
/// |--------------------|------------------------------------------------------------------------|
/// | input              | `std::array<I, n>` of token ids, n <= Positions                        |
/// | result             | n x Vocabulary logits (every position's, as Hugging Face's `logits`)   |
/// | `tok_embeddings`   | `token_embedding<T, Vocabulary, DModel>`                               |
/// | `layers`           | `sequential` of Layers `llama_block`s (`layers.0.attention.wq.weight`, ...) |
/// | `norm`             | `rms_norm<T, DModel>`, eps 1e-5 unless set                             |
/// | `output`           | DModel -> Vocabulary (`linear`, untied), or nothing (`Tied`: the embedding's table) |
/// | `decode_state<C>`  | one `kv_cache` of C tokens per layer                                   |
///
/// Rules: Vocabulary and Layers are positive (`count_must_be_positive`); the blocks' (heads divide DModel,
/// key/value heads divide heads, even head width, Positions > 0, Base > 1); 0 < n <= Positions and a decode
/// state's capacity <= Positions (`sequence_must_fit_position_table`).
///
/// `forward` gives every position's logits (n x Vocabulary on the stack); a prompt fed through `step` token by
/// token keeps one row and the caches instead, as a microcontroller should. Token ids: a constant id outside the
/// vocabulary is a compile error in constant evaluation; at run time `step` returns
/// `decode_status::token_outside_vocabulary` and changes nothing, and `forward` traps on one when
/// CTATTN_CHECK_PRECONDITIONS is on (check ids from outside with `step`, or before `forward`).
///
/// Parameters, in `state_dict` order: tok_embeddings.weight, layers.0.attention.wq.weight, ...,
/// layers.{Layers-1}.ffn_norm.weight, norm.weight, and output.weight when untied.
///
/// Example (llama2.c's stories260K: dim 64, 5 layers, 8 heads over 4, vocabulary 512, hidden 172, 512 positions):
/// \code
///   static ctattn::llama_transformer<float, 512, 64, 5, 8, 4, 172, 512> model{};   // ctattn::host::load_parameters
///   static decltype(model)::decode_state<512> state{};
///   decltype(model)::logits_row logits{};
///   std::size_t token = 1;   // BOS
///   while (model.step(token, state, logits) == ctattn::decode_status::decoded) token = ctattn::greedy_token(logits);
/// \endcode
template <typename T, std::size_t Vocabulary, auto DModel, std::size_t Layers, std::size_t Heads,
          std::size_t KeyValueHeads, auto Hidden, std::size_t Positions, bool Tied = true,
          rotary_layout Rotary = rotary_layout::interleaved, std::size_t Base = 10000>
struct llama_transformer {
  /// The rules of the model's own sizes (the blocks check theirs).
  using rules = rule_list<shape_error::count_must_be_positive<op::llama_attention, count<Vocabulary>>,
                          shape_error::count_must_be_positive<op::llama_attention, count<Layers>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  using value_type = T;
  static constexpr std::size_t vocabulary = Vocabulary;
  static constexpr std::size_t layer_count = Layers;
  static constexpr std::size_t positions = Positions;
  static constexpr bool tied = Tied;
  static constexpr auto model_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<(Vocabulary > 0 ? Vocabulary : 1)>;
  using block_type = llama_block<T, DModel, Heads, KeyValueHeads, Hidden, Positions, Rotary, Base>;
  // Rationale: with a broken rule one layer and one token stand in, so that the rule's sentence is the only error.
  using layers_type = detail::repeated_sequential<block_type, (rules_hold<rules> ? Layers : 1)>;
  static constexpr std::size_t vocabulary_rows = rules_hold<rules> ? Vocabulary : 1;
  using head_type = std::conditional_t<Tied, detail::tied_head, linear<T, DModel, vocabulary_rows, out_by_in, false>>;
  using logits_row = basic_matrix<T, std::size_t{1}, vocabulary_rows>;

  /// The key/value caches of decoding `Capacity` tokens: one per layer, all of the same length.
  ///
  /// Its caches hold the same number of tokens (`step` appends to each); change them only through `step` and
  /// `clear`. Bytes: Layers x Capacity x 2 x KeyValueHeads x head_dim x sizeof(T) and the lengths (stories260K's
  /// 512 tokens: 655,400 bytes in float); a capacity below Positions is a smaller state.
  template <std::size_t Capacity>
  struct decode_state {
    std::array<typename block_type::template cache_type<Capacity>, (rules_hold<rules> ? Layers : 1)> caches{};
    /// Tokens decoded so far.
    [[nodiscard]] constexpr std::size_t length() const noexcept { return caches[0].length; }
    constexpr void clear() noexcept {
      for (auto& cache : caches) cache.clear();
    }
  };

  token_embedding<T, vocabulary_rows, DModel> tok_embeddings{};
  layers_type layers{};
  rms_norm<T, DModel> norm{.eps = block_type::default_eps};
  [[no_unique_address]] head_type output{};

  template <std::integral I, std::size_t N, typename... Options>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids, const Options&... options) const noexcept {
    using x_type = basic_matrix<T, N, model_extent>;
    using result = basic_matrix<T, (N > 0 ? N : 1), output_extent>;
    using input_rules =
        rule_list<shape_error::count_must_be_positive<op::token_embedding, count<N>>,
                  shape_error::sequence_must_fit_position_table<op::llama_attention, dim<unnamed, N>,
                                                                dim<unnamed, (Positions > 0 ? Positions : 1)>>>;
    result logits{};
    if constexpr (rules_hold<rules> && rules_hold<typename block_type::attention_type::rules>) {
      if constexpr (detail::first_broken<input_rules>::check()) {
        const x_type x = ctattn::forward(layers, tok_embeddings.forward(ids), options...);
        head<detail::arithmetic_of<Options...>>(logits, ctattn::forward(norm, x, options...));
      }
    }
    return logits;
  }

  /// One token of decoding through every layer: `token` at position `state.length()`; writes its logits (those of
  /// the next token) into `logits`, row `state.length()` of `forward` over the whole sequence (the same bits with
  /// exact arithmetic). Returns `decode_status::decoded`, or, changing nothing, `cache_full` or
  /// `token_outside_vocabulary`.
  ///
  /// | operand  | shape                                 |
  /// |----------|---------------------------------------|
  /// | `token`  | an integer id, checked against Vocabulary |
  /// | `state`  | `decode_state<Capacity>`, Capacity <= Positions |
  /// | `logits` | 1 x Vocabulary                        |
  template <std::integral I, std::size_t Capacity, typename... Options>
    requires(!std::same_as<I, bool>)
  [[nodiscard]] constexpr decode_status step(I token, decode_state<Capacity>& state, logits_row& logits,
                                             const Options&... options) const noexcept {
    using row = basic_matrix<T, std::size_t{1}, model_extent>;
    if (!detail::id_inside_vocabulary(token, Vocabulary)) return decode_status::token_outside_vocabulary;
    const auto id = static_cast<std::size_t>(token);
    for (const auto& cache : state.caches) {
      if (cache.full()) return decode_status::cache_full;
    }
    row x{};
    for (std::size_t j = 0; j < row::cols; ++j) x.elements[0][j] = tok_embeddings.weight.elements[id][j];
    // Rationale: the blocks one by one, each with its own cache (a `sequential` chains one input to one output, and
    // a step also takes the block's cache); the same blocks `forward` runs through `layers`.
    [&]<std::size_t... L>(std::index_sequence<L...>) {
      ((void)boost::hana::at_c<L>(layers.layers).step(row{x}, state.caches[L], x, options...), ...);
    }(std::make_index_sequence<(rules_hold<rules> ? Layers : 1)>{});
    head<detail::arithmetic_of<Options...>>(logits, ctattn::forward(norm, x, options...));
    return decode_status::decoded;
  }

  /// The footprint of one forward on n ids (`ctattn::layer_footprint<M, std::array<I, n>>`): the embedded
  /// sequence, the layers' stack and result, the norm's result; the model's bytes include the rotary tables.
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = std::tuple_size_v<Ids>;
    using x_type = basic_matrix<T, n, model_extent>;
    constexpr footprint blocks = layer_footprint<layers_type, x_type>;
    footprint f = detail::call_footprint<llama_transformer, Ids, basic_matrix<T, n, output_extent>>(
        sizeof(x_type) + detail::held(blocks) + sizeof(x_type));
    f.weight_bytes += sizeof(typename block_type::attention_type::table_type);
    return f;
  }

  /// The footprint of decoding with a `decode_state<Capacity>`: the model and its rotary table (weights), the
  /// state (workspace), the logits row written (output), and one `step` on the stack: the token's row and its
  /// copy, a block's step, the norm's row.
  ///
  /// Example: `static_assert(M::decode_footprint<64>().ram_bytes() <= 128 * 1024);`
  template <std::size_t Capacity>
  [[nodiscard]] static constexpr footprint decode_footprint() noexcept {
    using row = basic_matrix<T, std::size_t{1}, model_extent>;
    return {sizeof(llama_transformer) + sizeof(typename block_type::attention_type::table_type), 0, sizeof(logits_row),
            sizeof(decode_state<Capacity>),
            3 * sizeof(row) + block_type::template step_footprint<Capacity>().stack_bytes};
  }

  template <detail::SameLayer<llama_transformer> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    if constexpr (Tied) {
      return boost::hana::make_tuple(sublayer("tok_embeddings", self.tok_embeddings), sublayer("layers", self.layers),
                                     sublayer("norm", self.norm));
    } else {
      return boost::hana::make_tuple(sublayer("tok_embeddings", self.tok_embeddings), sublayer("layers", self.layers),
                                     sublayer("norm", self.norm), sublayer("output", self.output));
    }
  }
  friend constexpr bool operator==(const llama_transformer&, const llama_transformer&) = default;

  /// The output head on rows `x` the final norm gave: logits = x E^T with the embedding's table (tied), or x's rows
  /// through `output`, in arithmetic A (`forward` and `step` end with it; `ctattn::record_ranges` calls it too).
  ///
  /// | operand  | shape          |
  /// |----------|----------------|
  /// | `x`      | n x DModel     |
  /// | `logits` | n x Vocabulary |
  ///
  /// Example: `model.head<ctattn::arithmetic::exact>(logits, normed);`
  template <arithmetic A, typename Y, typename X>
  constexpr void head(Y& logits, const X& x) const noexcept {
    if constexpr (Tied) {
      detail::kernels::product_transposed<A>(logits.elements, x.elements, tok_embeddings.weight.elements);
    } else {
      detail::project_rows<A>(logits, x, output);
    }
  }
};

/// The id of the largest logit, the first of equal ones (`torch.argmax`): greedy decoding's next token. A NaN is
/// never picked (torch.argmax would pick the first NaN); a model whose logits hold one is broken either way.
///
/// | operand  | shape          |
/// |----------|----------------|
/// | `logits` | 1 x Vocabulary |
///
/// Example: `token = ctattn::greedy_token(logits);`
template <typename T, auto V>
[[nodiscard]] constexpr std::size_t greedy_token(const basic_matrix<T, std::size_t{1}, V>& logits) noexcept {
  std::size_t best = 0;
  for (std::size_t j = 1; j < basic_matrix<T, std::size_t{1}, V>::cols; ++j) {
    if (logits.elements[0][j] > logits.elements[0][best]) best = j;
  }
  return best;
}

/// What `generate_greedy` did: the ids it wrote, and the status of its last step (`decoded` when every step
/// decoded; otherwise the step that changed nothing: the cache is full or a prompt id is outside the vocabulary).
struct greedy_generation {
  std::size_t generated = 0;
  decode_status status = decode_status::decoded;
  friend constexpr bool operator==(const greedy_generation&, const greedy_generation&) = default;
};

/// Greedy decoding of a float or int8 llama model (`llama_transformer`, `quantized_model` of one): each id of
/// `prompt` through `m.step`, then up to `ids.size()` ids, each `greedy_token` of the last step's logits, written to
/// `ids` and fed back (all but the last): `prompt.size() + ids.size() - 1` steps (with no ids: the prompt's),
/// appended to what `s` holds (clear it for a new sequence). `on_step(step, logits)` sees every decoded step's
/// logits (step 0 is the first prompt id); `options` (an arithmetic) go to each step. It stops at the first step
/// that does not decode, and returns how many ids it wrote and that step's status. An empty prompt generates nothing
/// (`generated` 0, status `decoded`: check `generated`). Unlike llama2.c's `generate`, it does not stop when it picks
/// BOS (id 1); `on_step` sees each pick's logits, and a caller who wants such a stop sets `ids` to the length it
/// wants or stops reading at the id.
///
/// | operand   | shape / meaning                                                                   |
/// |-----------|-----------------------------------------------------------------------------------|
/// | `prompt`  | P token ids (a `std::array`, `std::span`, ... of integers: `token_ids_must_be_integers`), each checked against the vocabulary |
/// | `ids`     | G integers, each type holding every id (`generated_ids_must_hold_vocabulary`): the generated ids |
/// | `s`       | the model's `decode_state<K>`; K >= its length + P + G - 1, else `cache_full`      |
/// | `logits`  | the model's `logits_row`: the last step's logits on return                        |
///
/// Example:
///
///     state.clear();
///     std::array<std::uint16_t, 16> ids{};
///     const auto run = ctattn::generate_greedy(model, state, logits, std::array{1, 72, 105}, ids,
///                                              [](std::size_t, const auto&) {});
///     // run.generated == 16 and run.status == ctattn::decode_status::decoded when the cache holds 18 tokens
template <typename M, typename State, typename Logits, typename Prompt, typename Ids, typename OnStep,
          typename... Options>
[[nodiscard]] constexpr greedy_generation generate_greedy(const M& m, State& s, Logits& logits, const Prompt& prompt,
                                                          Ids&& ids, OnStep&& on_step,
                                                          const Options&... options) noexcept {
  using id_type = std::remove_cvref_t<decltype(ids[0])>;
  using prompt_id_type = std::remove_cvref_t<decltype(prompt[0])>;
  using rules = rule_list<
      shape_error::token_ids_must_be_integers<op::generate_greedy, prompt_id_type>,
      shape_error::generated_ids_must_hold_vocabulary<op::generate_greedy, id_type, dim<unnamed, M::vocabulary>>>;
  greedy_generation run{};
  if constexpr (!detail::first_broken<rules>::check()) {
    return run;
  } else {
    const std::size_t prompt_length = std::size(prompt);
    const std::size_t wanted = std::size(ids);
    if (prompt_length == 0) return run;
    // The last generated id is not fed back; with no ids wanted, the whole prompt is (a prefill).
    const std::size_t steps = wanted == 0 ? prompt_length : prompt_length + wanted - 1;
    std::size_t next = 0;
    for (std::size_t step = 0; step < steps; ++step) {
      // Rationale: a prompt's id is checked in its own type (an int64 id past 2^32 must not wrap into the vocabulary
      // on a 32-bit core), then goes to `step` as a std::size_t, as the picks do: one instantiation of the step.
      if (step < prompt_length) {
        if (!detail::id_inside_vocabulary(prompt[step], M::vocabulary)) {
          run.status = decode_status::token_outside_vocabulary;
          return run;
        }
        next = static_cast<std::size_t>(prompt[step]);
      }
      run.status = m.step(next, s, logits, options...);
      if (run.status != decode_status::decoded) return run;
      on_step(step, static_cast<const Logits&>(logits));
      if (step + 1 >= prompt_length && run.generated < wanted) {
        next = greedy_token(logits);
        ids[run.generated++] = static_cast<id_type>(next);
      }
    }
    return run;
  }
}

}  // namespace ctattn

#endif  // CTATTN_LAYERS_LLAMA_HPP
