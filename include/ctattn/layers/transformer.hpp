// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_TRANSFORMER_HPP
#define CTATTN_LAYERS_TRANSFORMER_HPP

/// \file
/// Transformer layers with PyTorch's semantics and parameter names: `transformer_encoder_layer`
/// (nn.TransformerEncoderLayer) and `transformer_decoder_layer` (nn.TransformerDecoderLayer), both
/// `batch_first=True`, in eval mode (dropout is the identity), with `norm_first` false (post-norm, the default)
/// or true (pre-norm), and a relu or gelu activation.

#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/attention/kv_cache.hpp"
#include "ctattn/layers/activation.hpp"
#include "ctattn/layers/attention.hpp"
#include "ctattn/layers/detail/blocks.hpp"
#include "ctattn/layers/feed_forward.hpp"
#include "ctattn/layers/layer.hpp"
#include "ctattn/layers/norm.hpp"
#include "ctattn/matrix/elementwise.hpp"
#include "ctattn/matrix/with_extents.hpp"

namespace ctattn {

namespace detail {
// The steps of a float transformer layer's residual blocks (ctattn/layers/detail/blocks.hpp): block k's LayerNorm,
// the k-th of `norms`, with the arithmetic How, and the sum in its first operand's type.
template <arithmetic How, typename... Norms>
[[nodiscard]] constexpr auto float_block_steps(const Norms&... norms) noexcept {
  return block_steps{[&norms...](auto at_block, const auto& in) {
                       return ctattn::forward(block_member<decltype(at_block)::value>(norms...), in,
                                              arithmetic_option<How>{});
                     },
                     [](auto, const auto& in, const auto& addend) {
                       const std::remove_cvref_t<decltype(in)> sum = ctattn::add(in, addend);
                       return sum;
                     }};
}

// A float layer's sublayer (its attention, its feed-forward block) on a block's input, in a call of its own.
// Rationale: a frame of its own, freed before the next sublayer runs, as the layer's footprint counts one sublayer
// at a time. Inlined into the layer's `forward` (GCC does so at -Os with a sublayer called once), the attention's
// Q, K, V, concatenation and output kept their bytes in the layer's frame while the feed-forward block ran below
// it: KWT-Tiny's float inference took 39,036 bytes of stack on the M4F (painted), 35,836 this way.
template <typename Sublayer, typename In, typename... Options>
[[nodiscard, gnu::noinline]] constexpr auto sublayer_forward(const Sublayer& sublayer, const In& in,
                                                             const Options&... options) noexcept {
  return ctattn::forward(sublayer, in, options...);
}
}  // namespace detail

/// nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, activation, norm_first, batch_first=True) in eval
/// mode, with `Mask` on its self-attention (none by default; `ctattn::causal_mask` for a decoder-only model):
///
///     norm_first:  x = x + self_attn(norm1(x));  x = x + ff(norm2(x))
///     otherwise:   x = norm1(x + self_attn(x));  x = norm2(x + ff(x))
///
/// with ff(x) = linear2(activation(linear1(x))).
///
/// | operand / member           | shape / meaning                                         |
/// |----------------------------|---------------------------------------------------------|
/// | input, result              | n x DModel                                              |
/// | `self_attn`                | `multi_head_attention_weights<T, Heads, DModel, Layout, true>` |
/// | `linear1`, `linear2`       | DModel -> FeedForward -> DModel, with biases            |
/// | `norm1`, `norm2`           | `layer_norm<T, DModel>` (eps 1e-5 unless set)           |
///
/// Parameters in `state_dict` order: self_attn.in_proj_weight, self_attn.in_proj_bias, self_attn.out_proj.weight,
/// self_attn.out_proj.bias, linear1.weight, linear1.bias, linear2.weight, linear2.bias, norm1.weight, norm1.bias,
/// norm2.weight, norm2.bias.
///
/// Example:
/// \code
///   ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true> layer{};   // pre-norm, gelu
///   auto y = ctattn::forward(layer, x);                                               // x, y: n x 32
/// \endcode
template <typename T, auto DModel, std::size_t Heads, auto FeedForward, typename Activation = relu,
          bool NormFirst = false, typename Mask = no_mask_type, WeightLayout Layout = out_by_in>
struct transformer_encoder_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  using value_type = T;
  /// The mask every call applies (no state: `ctattn::no_mask_type` or `ctattn::causal_mask`).
  using mask_type = Mask;
  static constexpr auto input_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<DModel>;
  static constexpr bool norm_first = NormFirst;

  multi_head_attention_layer<multi_head_attention_weights<T, Heads, DModel, Layout, true>, Mask> self_attn{};
  feed_forward<T, DModel, FeedForward, Activation, Layout, true> ff{};
  layer_norm<T, DModel> norm1{};
  layer_norm<T, DModel> norm2{};

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    using result = basic_matrix<T, X::row_extent, output_extent>;
    if constexpr (detail::first_broken<detail::layer_input_rules<transformer_encoder_layer, X>>::check()) {
      const result input = with_extents<X::row_extent, output_extent>(x);
      return detail::residual_blocks<NormFirst>(
          blocks(options...), input,
          [&](const result& in) { return detail::sublayer_forward(self_attn, in, options...); },
          [&](const result& in) { return detail::sublayer_forward(ff, in, options...); });
    } else {
      return result{};
    }
  }

  /// One token of autoregressive decoding through a causal layer (`Mask` = `ctattn::causal_mask`): `x` is the
  /// token's row, `cache` holds the keys and values of the tokens before it (and receives its own); writes the
  /// token's output row into `out`, which equals the row of `forward` over the whole sequence. False, with nothing
  /// changed, when the cache is full.
  ///
  /// | operand | shape                                 |
  /// |---------|---------------------------------------|
  /// | `x`     | 1 x DModel                            |
  /// | `cache` | `kv_cache<T, Capacity, DModel>`       |
  /// | `out`   | 1 x DModel                            |
  template <FixedMatrix X, KeyValueCache Cache, typename... Options>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, basic_matrix<T, std::size_t{1}, output_extent>& out,
                                    const Options&... options) const noexcept {
    static_assert((shape_error::decoding_layer_must_be_causal<op::decoding_step, Mask>::check(), true));
    using row = basic_matrix<T, std::size_t{1}, output_extent>;
    if (cache.full()) return false;
    row attended{};
    out = detail::residual_blocks<NormFirst>(
        blocks(options...), with_extents<std::size_t{1}, output_extent>(x),
        [&](const row& in) {
          (void)multi_head_attention_step(in, self_attn.weights, cache, attended, options...);
          return attended;
        },
        [&](const row& in) { return ctattn::forward(ff, in, options...); });
    return true;
  }

  /// The steps of the layer's two residual blocks (ctattn/layers/detail/blocks.hpp): norm1 or norm2, and the sum,
  /// with the call's arithmetic.
  template <typename... Options>
  [[nodiscard]] constexpr auto blocks(const Options&...) const noexcept {
    return detail::float_block_steps<detail::arithmetic_of<Options...>>(norm1, norm2);
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): on the stack, six n x DModel results
  /// (`input` and `h`; per half, the sublayer's result and a norm's or a sum's) and the deepest sublayer's stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = basic_matrix<T, X::row_extent, output_extent>;
    const std::size_t deepest = detail::largest(layer_footprint<decltype(self_attn), result>.stack_bytes,
                                                layer_footprint<decltype(ff), result>.stack_bytes,
                                                layer_footprint<layer_norm<T, DModel>, result>.stack_bytes);
    return detail::call_footprint<transformer_encoder_layer, X, result>(6 * sizeof(result) + deepest);
  }

  template <detail::SameLayer<transformer_encoder_layer> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(sublayer("self_attn", self.self_attn), sublayer("", self.ff),
                                   sublayer("norm1", self.norm1), sublayer("norm2", self.norm2));
  }
  /// Its setting (ctattn::for_each_setting): `norm_first`; its sublayers give `activation`, the heads and the eps.
  friend constexpr auto settings(const transformer_encoder_layer&) noexcept {
    return std::array{setting("norm_first", NormFirst ? "true" : "false")};
  }
  friend constexpr bool operator==(const transformer_encoder_layer&, const transformer_encoder_layer&) = default;
};

/// nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward, activation, norm_first, batch_first=True) in eval
/// mode, its self-attention masked by `Mask` (by default `ctattn::causal_mask`: PyTorch's `tgt_mask` = the causal
/// mask, as a decoder generating tokens runs it; `ctattn::no_mask_type` for PyTorch's default, no `tgt_mask`), its
/// cross-attention unmasked over the encoder's output `memory`:
///
///     norm_first:  x = x + self_attn(norm1(x));  x = x + cross(norm2(x), memory);  x = x + ff(norm3(x))
///     otherwise:   x = norm1(x + self_attn(x));  x = norm2(x + cross(x, memory));  x = norm3(x + ff(x))
///
/// | operand / member                | shape / meaning                                 |
/// |---------------------------------|-------------------------------------------------|
/// | `x` (tgt)                       | n x DModel                                      |
/// | `memory`                        | m x DModel (the encoder's output)               |
/// | result                          | n x DModel                                      |
/// | `self_attn`, `multihead_attn`   | multi-head weights, with biases                 |
/// | `linear1`, `linear2`            | DModel -> FeedForward -> DModel                 |
/// | `norm1`, `norm2`, `norm3`       | `layer_norm<T, DModel>`                         |
///
/// Rules: x and memory hold T and have DModel columns.
///
/// Masks after the operands say which attention they are for: `ctattn::tgt_mask(m)` for the self-attention,
/// combined with `Mask` (PyTorch's tgt_mask and tgt_key_padding_mask), `ctattn::memory_mask(m)` for the
/// attention over the memory (memory_mask, memory_key_padding_mask); m is any mask of ctattn/attention/mask.hpp.
/// `Mask` holds no state (rule `layer_mask_must_hold_no_state`); decoding token by token (`step`) needs the causal
/// one (`decoding_layer_must_be_causal`).
///
/// Example:
/// \code
///   ctattn::transformer_decoder_layer<float, 32, 4, 64> layer{};
///   auto y = layer.forward(tgt, memory);   // tgt: n x 32, memory: m x 32
///   auto padded = layer.forward(tgt, memory, ctattn::tgt_mask(ctattn::key_padding_length{3}),
///                               ctattn::memory_mask(ctattn::key_padding_length{5}));
/// \endcode
template <typename T, auto DModel, std::size_t Heads, auto FeedForward, typename Activation = relu,
          bool NormFirst = false, typename Mask = causal_mask, WeightLayout Layout = out_by_in>
struct transformer_decoder_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  using value_type = T;
  /// The mask of the self-attention (`ctattn::causal_mask` by default, `ctattn::no_mask_type`).
  using mask_type = Mask;
  /// It attends to a memory given with the call (`ctattn::with_memory`).
  static constexpr bool takes_memory = true;
  static constexpr auto input_extent = normalize_extent<DModel>;
  static constexpr auto output_extent = normalize_extent<DModel>;
  static constexpr bool norm_first = NormFirst;
  using weights = multi_head_attention_weights<T, Heads, DModel, Layout, true>;

  multi_head_attention_layer<weights, Mask> self_attn{};
  weights multihead_attn{};
  feed_forward<T, DModel, FeedForward, Activation, Layout, true> ff{};
  layer_norm<T, DModel> norm1{};
  layer_norm<T, DModel> norm2{};
  layer_norm<T, DModel> norm3{};

  template <FixedMatrix X, FixedMatrix Memory, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Memory& memory, const Options&... options) const noexcept {
    using result = basic_matrix<T, X::row_extent, output_extent>;
    using rules =
        rule_list<detail::layer_input_rules<transformer_decoder_layer, X>,
                  shape_error::element_types_must_match<op::transformer_decoder_layer, typename Memory::value_type, T>,
                  shape_error::memory_width_must_match_layer<op::transformer_decoder_layer,
                                                             dim_of<Memory::column_extent>, dim_of<input_extent>>,
                  shape_error::decoder_masks_must_name_their_attention<op::transformer_decoder_layer, Options...>>;
    if constexpr (detail::first_broken<rules>::check()) {
      // Rationale: each attention gets its own mask, and every sublayer the call's arithmetic only.
      constexpr arithmetic_option<detail::arithmetic_of<Options...>> how{};
      const result input = with_extents<X::row_extent, output_extent>(x);
      const auto self = [&](const result& in) {
        if constexpr ((detail::is_tgt_mask_option<Options>::value || ...)) {
          const auto& target = detail::find_first<detail::is_tgt_mask_option>(options...);
          return multi_head_attention(in, in, in, self_attn.weights, combine_masks(Mask{}, target.mask), how);
        } else {
          return multi_head_attention(in, in, in, self_attn.weights, Mask{}, how);
        }
      };
      const auto cross = [&](const result& in) {
        if constexpr ((detail::is_memory_mask_option<Options>::value || ...)) {
          const auto& given = detail::find_first<detail::is_memory_mask_option>(options...).mask;
          return multi_head_attention(in, memory, memory, multihead_attn, given, how);
        } else {
          return multi_head_attention(in, memory, memory, multihead_attn, how);
        }
      };
      return detail::residual_blocks<NormFirst>(blocks(how), input, self, cross,
                                                [&](const result& in) { return ctattn::forward(ff, in, how); });
    } else {
      return result{};
    }
  }

  /// `forward(x, memory, options...)` with the memory among the options (`ctattn::with_memory(memory)`): the form
  /// `ctattn::forward(layer, x, options...)` and `ctattn::sequential` call, so that decoder layers compose like
  /// encoder layers, every layer of a stack attending to the same memory.
  template <FixedMatrix X, typename... Options>
    requires(detail::is_memory_option<Options>::value || ...)
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    return forward(x, *detail::find_first<detail::is_memory_option>(options...).memory, options...);
  }

  /// A forward without a memory (a model or a stack of decoder layers run on the target alone): the rule
  /// `decoder_needs_its_memory` says to give it.
  template <FixedMatrix X, typename... Options>
    requires(!(detail::is_memory_option<Options>::value || ...) && !(FixedMatrix<Options> || ...))
  [[nodiscard]] constexpr auto forward(const X&, const Options&...) const noexcept
      -> basic_matrix<T, X::row_extent, output_extent> {
    (void)shape_error::decoder_needs_its_memory<op::transformer_decoder_layer,
                                                (detail::is_memory_option<Options>::value || ...)>::check();
    return {};
  }

  /// The result of a forward on an X (for `ctattn::sequential`, which asks it without a memory at hand).
  template <typename X>
  using result_of = basic_matrix<T, X::row_extent, output_extent>;

  /// Projects the encoder's output once into `source`, the cache `step`'s cross-attention reads
  /// (`ctattn::cache_memory` with `multihead_attn`'s W_K and W_V). Call once per source sequence.
  ///
  /// | operand  | shape                                            |
  /// |----------|--------------------------------------------------|
  /// | `memory` | m x DModel (the encoder's output), m <= Capacity |
  /// | `source` | `kv_cache<T, Capacity, DModel>`                  |
  template <FixedMatrix Memory, KeyValueCache Cache, typename... Options>
  constexpr void prepare(const Memory& memory, Cache& source, const Options&... options) const noexcept {
    cache_memory(memory, multihead_attn, source, options...);
  }

  /// One token of autoregressive decoding: `x` is the token's row; `cache` holds the keys and values of the
  /// tokens before it (and receives its own), `source` the encoder's output as `prepare` projected it. Writes the
  /// token's output row into `out`, which equals the row of `forward(tgt, memory)` over the whole target (the same
  /// bits with exact arithmetic). False, with nothing changed, when `cache` is full.
  ///
  /// | operand  | shape                                 |
  /// |----------|---------------------------------------|
  /// | `x`      | 1 x DModel                            |
  /// | `cache`  | `kv_cache<T, Capacity, DModel>`       |
  /// | `source` | `kv_cache<T, M, DModel>` from `prepare` |
  /// | `out`    | 1 x DModel                            |
  ///
  /// Example:
  /// \code
  ///   ctattn::kv_cache<float, 16, 32> cache{}, source{};
  ///   layer.prepare(memory, source);
  ///   for (const auto& x_t : tokens) if (!layer.step(x_t, cache, source, y_t)) break;
  /// \endcode
  template <FixedMatrix X, KeyValueCache Cache, KeyValueCache Source, typename... Options>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, const Source& source,
                                    basic_matrix<T, std::size_t{1}, output_extent>& out,
                                    const Options&... options) const noexcept {
    static_assert((shape_error::decoding_layer_must_be_causal<op::decoding_step, Mask>::check(), true));
    using row = basic_matrix<T, std::size_t{1}, output_extent>;
    if (cache.full()) return false;
    row attended{};
    row crossed{};
    out = detail::residual_blocks<NormFirst>(
        blocks(options...), with_extents<std::size_t{1}, output_extent>(x),
        [&](const row& in) {
          (void)multi_head_attention_step(in, self_attn.weights, cache, attended, options...);
          return attended;
        },
        [&](const row& in) {
          multi_head_attention_cached(in, multihead_attn, source, crossed, options...);
          return crossed;
        },
        [&](const row& in) { return ctattn::forward(ff, in, options...); });
    return true;
  }

  /// The steps of the layer's three residual blocks (ctattn/layers/detail/blocks.hpp): norm1, norm2 or norm3, and
  /// the sum, with the call's arithmetic.
  template <typename... Options>
  [[nodiscard]] constexpr auto blocks(const Options&...) const noexcept {
    return detail::float_block_steps<detail::arithmetic_of<Options...>>(norm1, norm2, norm3);
  }

  /// The footprint of one forward on an X with an encoder output Memory: `input_bytes` counts both; on the
  /// stack, nine n x DModel results (`input`, `a`, `b`; per third, the sublayer's result and a norm's or a sum's)
  /// and the deepest sublayer's stack (the cross-attention's Q, K, V, concatenation and output among them).
  ///
  /// Example: `constexpr auto fp = decoder_type::footprint_of<decltype(tgt), decltype(memory)>();`
  /// In `ctattn::sequential`, which knows X only, Memory is taken to be as long as X.
  template <FixedMatrix X, FixedMatrix Memory = X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = basic_matrix<T, X::row_extent, output_extent>;
    constexpr footprint cross = multi_head_attention_footprint<result, Memory, weights, 2>;
    const std::size_t deepest = detail::largest(layer_footprint<decltype(self_attn), result>.stack_bytes,
                                                cross.workspace_bytes + cross.output_bytes + cross.stack_bytes,
                                                layer_footprint<decltype(ff), result>.stack_bytes,
                                                layer_footprint<layer_norm<T, DModel>, result>.stack_bytes);
    footprint f = detail::call_footprint<transformer_decoder_layer, X, result>(9 * sizeof(result) + deepest);
    f.input_bytes += sizeof(Memory);
    return f;
  }

  template <detail::SameLayer<transformer_decoder_layer> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(
        sublayer("self_attn", self.self_attn), sublayer("multihead_attn", self.multihead_attn), sublayer("", self.ff),
        sublayer("norm1", self.norm1), sublayer("norm2", self.norm2), sublayer("norm3", self.norm3));
  }
  /// Its setting (ctattn::for_each_setting): `norm_first`; its sublayers give `activation`, the heads and the eps.
  friend constexpr auto settings(const transformer_decoder_layer&) noexcept {
    return std::array{setting("norm_first", NormFirst ? "true" : "false")};
  }
  friend constexpr bool operator==(const transformer_decoder_layer&, const transformer_decoder_layer&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_TRANSFORMER_HPP
