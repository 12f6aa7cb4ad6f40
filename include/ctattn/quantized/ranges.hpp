// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_RANGES_HPP
#define CTATTN_QUANTIZED_RANGES_HPP

/// \file
/// Calibration by the library: a float model runs over sample inputs and records the range of every activation
/// that its int8 form quantizes, by name (`layers.0.norm1`), not by position. The ranges go to a header
/// (`ctattn::host::write_ranges_header`, ctattn/host/ranges.hpp) that the int8 model reads by name.
///
/// | entity                                  | what                                                             |
/// |-----------------------------------------|------------------------------------------------------------------|
/// | `activation_ranges<Capacity>`           | the recorder: up to Capacity named ranges, widened sample by sample |
/// | `record_ranges(model, x, ranges)`       | runs `model` on x (its float forward), widens `ranges`, returns the output |
///
/// The generated header holds `ctattn::named_range`s, read by `ctattn::range_at` (ctattn/quantized/calibrate.hpp) and
/// `ctattn::encoder_layer_quantizations_at` (ctattn/quantized/transformer.hpp).
///
/// The names: each layer's output under its path (the member names of a `ctattn::model`, the indices of a
/// `ctattn::sequential`, as the parameters are named): `pos`, `layers.0`, `layers` (a chain's output, its last
/// layer's), `norm`, `head`, `output` for the whole model's, and `input` for a matrix input. A layer with points of its own adds them under its
/// path:
///
/// | layer                        | points                                                                      |
/// |------------------------------|-----------------------------------------------------------------------------|
/// | `token_embedding`, `position_embedding` | `<path>.weight`: the table (quantized per tensor)                |
/// | `multi_head_attention_layer` | `<path>.query`, `.key`, `.value`, `.scores`, `.context`; W_O's output is the layer's, under `<path>` |
/// | `feed_forward`               | `<path>.hidden`, `.activation`; linear2's output is the block's, under `<path>` |
/// | `gated_feed_forward`         | `<path>.w1`, `.activation` (the gate), `.w3`, `.product`; w2's output under `<path>` |
/// | `residual`                   | the inner layer's points and output under `<path>.inner`; the sum under `<path>` |
/// | `transformer_decoder_layer`  | as an encoder layer's, then `.cross_query`, `.cross_key`, `.cross_value`, `.cross_scores`, `.cross_context`, `.cross_attention` (the attention over the memory), `.sum2`, `.norm3` (post-norm: `.sum3`); the memory as `memory` (given with `ctattn::with_memory`) |
/// | `llama_attention`, `llama_block`, `llama_transformer` | ctattn/quantized/llama.hpp's table: `<path>.query` (projected and rotated), ...; `<path>.attention_norm`, `<path>.attention.query`, ..., `<path>.sum1`, `<path>.ffn_norm`, `<path>.feed_forward.w1`, ...; `<path>.tok_embeddings.weight`, `<path>.layers.0...`, `<path>.norm` |
/// | `transformer_encoder_layer`  | `<path>.norm1`, `.query`, `.key`, `.value`, `.scores` (q k^T / sqrt(d_head), the keys the mask lets each query see), `.context` (the heads side by side), `.attention` (W_O's output), `.sum1`, `.norm2`, `.hidden`, `.activation`, `.feed_forward`; post-norm: `.norm1` is LayerNorm(`.sum1`), `.sum2` (norm1 + feed_forward) replaces `.norm2` (whose output is the layer's) |
/// | a layer of one's own         | its output under `<path>`, as every layer's; with a friend `record_points(self, x, points)`, the points it widens under `<path>.<name>` (`ctattn::point_recorder`) |
///
/// Every computation is the float layer's own (its sublayers' `forward`), so the recorded output is the float
/// model's; a test holds it to `forward` bit for bit.
///
/// Example:
/// \code
///   ctattn::activation_ranges<64> ranges{};
///   for (const auto& ids : samples) (void)ctattn::record_ranges(model, ids, ranges);
///   // ctattn::host::write_ranges_header("sorter_ranges.hpp", ranges, "toy::sorter_ranges");
/// \endcode

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ctattn/detail/config.hpp"
#include "ctattn/layers.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/quantized/calibrate.hpp"
#include "ctattn/quantized/llama.hpp"
#include "ctattn/quantized/points.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/quantized/transformer.hpp"

namespace ctattn {

/// The recorder of `record_ranges`: up to `Capacity` named ranges, in the order they were first seen.
///
/// | member            | what                                                   |
/// |-------------------|--------------------------------------------------------|
/// | `size()`          | the names recorded                                     |
/// | `name(i)`, `range(i)` | entry i                                            |
/// | `find(name)`      | the entry's range, or nullptr                          |
/// | `overflowed`      | true when a name did not fit (Capacity too small)      |
///
/// Example: `ctattn::activation_ranges<64> ranges{}; (void)ctattn::record_ranges(model, x, ranges);`
template <std::size_t Capacity>
struct activation_ranges {
  struct entry {
    parameter_name name{};
    value_range range{};
  };
  std::array<entry, Capacity> entries{};
  std::size_t count = 0;
  bool overflowed = false;

  [[nodiscard]] constexpr std::size_t size() const noexcept { return count; }
  [[nodiscard]] constexpr std::string_view name(std::size_t i) const noexcept { return entries[i].name.view(); }
  [[nodiscard]] constexpr value_range range(std::size_t i) const noexcept { return entries[i].range; }

  [[nodiscard]] constexpr const value_range* find(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < count; ++i) {
      if (entries[i].name.view() == name) return &entries[i].range;
    }
    return nullptr;
  }

  /// The ranges as a table of `named_range`s, as a generated header holds them, for `ctattn::quantize` on ranges
  /// recorded in a constant expression: the names refer to this object, so it must outlive the table (a constexpr
  /// variable). The entries past `size()` have empty names.
  ///
  /// Example: `static constexpr auto table = recorded.table();   // ctattn::quantize<table>(model)`
  [[nodiscard]] constexpr std::array<named_range, Capacity> table() const noexcept {
    std::array<named_range, Capacity> t{};
    for (std::size_t i = 0; i < count; ++i) t[i] = {entries[i].name.view(), entries[i].range};
    return t;
  }

  /// Widens the range named `name` by the elements of `m` (NaN skipped), adding the name when it is new.
  template <FixedMatrix M>
  constexpr void widen(std::string_view name, const M& m) noexcept {
    const value_range seen = observed_range(m);
    for (std::size_t i = 0; i < count; ++i) {
      if (entries[i].name.view() == name) {
        value_range& r = entries[i].range;
        r.lo = seen.lo < r.lo ? seen.lo : r.lo;
        r.hi = seen.hi > r.hi ? seen.hi : r.hi;
        return;
      }
    }
    if (count == Capacity) {
      overflowed = true;
      return;
    }
    entries[count].name = parameter_name{};
    entries[count].name.append(name);
    entries[count].range = seen;
    ++count;
  }
};

namespace detail {
// `path.point`, or `point` at the top.
[[nodiscard]] constexpr parameter_name point_name(const parameter_name& path, std::string_view point) noexcept {
  parameter_name name = path;
  if (name.length != 0) name.append(".");
  name.append(point);
  return name;
}

// The name of the output of the layer at `path`: the path itself, or `output` for the whole model (a chain's, or a
// single layer's given to record_ranges).
[[nodiscard]] constexpr std::string_view output_name(const parameter_name& path) noexcept {
  return output_point(path.view());
}
}  // namespace detail

/// What a layer of one's own records the points inside it with: the recorder `record_ranges` gives the layer's
/// optional friend `record_points(self, x, points)` (docs/layers.md, "A layer of your own"). `widen(name, m)` widens
/// the range `<path>.<name>` (`<name>` for a single layer recorded alone) by the elements of the matrix `m`, where
/// its int8 form reads it back (`ctattn::int8_context::range_at(name)`, ctattn/quantized/model.hpp).
///
/// | member            | what                                                        |
/// |-------------------|-------------------------------------------------------------|
/// | `widen(name, m)`  | widens the range of the point `name` under the layer's path |
/// | `path()`          | the layer's path (`scale`, `layers.1`; empty for a single layer) |
///
/// Example (x * 4 as two doublings, whose int8 form would read the range between them):
/// \code
///   struct quadrupling {
///     using value_type = float;
///     static constexpr bool keeps_width = true;
///     template <ctattn::FixedMatrix X, typename... Options>
///     constexpr X forward(const X& x, const Options&...) const noexcept {
///       const X doubled = ctattn::add(x, x);
///       return ctattn::add(doubled, doubled);
///     }
///     template <ctattn::FixedMatrix X, typename Points>   // the hook: the point inside, then the output
///     friend constexpr X record_points(const quadrupling&, const X& x, Points& points) noexcept {
///       const X doubled = ctattn::add(x, x);
///       points.widen("doubled", doubled);        // recorded as <path>.doubled
///       return ctattn::add(doubled, doubled);    // record_ranges records it under <path>
///     }
///   };
///   constexpr auto recorded = [] {
///     ctattn::activation_ranges<4> ranges{};
///     (void)ctattn::record_ranges(quadrupling{}, ctattn::matrix<float, 1, 2>{{{0.5f, -1.0f}}}, ranges);
///     return ranges;
///   }();
///   static_assert(recorded.find("doubled")->lo == -2.0 && recorded.find("output")->lo == -4.0);
/// \endcode
template <typename Recorder>
class point_recorder {
 public:
  constexpr point_recorder(Recorder& ranges, const parameter_name& path) noexcept : ranges_(ranges), path_(path) {}

  /// Widens the range of the point `name` under the layer's path by the elements of `m` (NaN skipped).
  template <FixedMatrix M>
  constexpr void widen(std::string_view name, const M& m) noexcept {
    ranges_.widen(detail::point_name(path_, name).view(), m);
  }

  /// The layer's path.
  [[nodiscard]] constexpr std::string_view path() const noexcept { return path_.view(); }

 private:
  Recorder& ranges_;
  const parameter_name& path_;
};

namespace detail {
// The optional hook of a layer of one's own that records points inside it, found by argument-dependent lookup only
// (a friend of the layer): `record_points(layer, x, points)` gives the layer's output.
namespace point_hook {
void record_points() = delete;
template <typename L, typename X, typename Points>
concept records = requires(const L& layer, const X& x, Points& points) { record_points(layer, x, points); };
template <typename L, typename X, typename Points>
[[nodiscard]] constexpr auto call(const L& layer, const X& x, Points& points) noexcept {
  return record_points(layer, x, points);
}
}  // namespace point_hook

template <typename L>
inline constexpr bool is_encoder_layer = false;
template <typename T, auto D, std::size_t H, auto F, typename A, bool N, typename M, WeightLayout W>
inline constexpr bool is_encoder_layer<transformer_encoder_layer<T, D, H, F, A, N, M, W>> = true;

template <typename L>
inline constexpr bool is_decoder_layer = false;
template <typename T, auto D, std::size_t H, auto F, typename A, bool N, typename M, WeightLayout W>
inline constexpr bool is_decoder_layer<transformer_decoder_layer<T, D, H, F, A, N, M, W>> = true;

template <typename L>
inline constexpr bool is_feed_forward = false;
template <typename T, auto D, auto H, typename A, WeightLayout W, bool B>
inline constexpr bool is_feed_forward<feed_forward<T, D, H, A, W, B>> = true;
template <typename L>
inline constexpr bool is_gated_feed_forward = false;
template <typename T, auto D, auto H, typename A, WeightLayout W, bool B>
inline constexpr bool is_gated_feed_forward<gated_feed_forward<T, D, H, A, W, B>> = true;
template <typename L>
inline constexpr bool is_residual = false;
template <typename Inner>
inline constexpr bool is_residual<residual<Inner>> = true;

template <typename L>
inline constexpr bool is_attention_layer = false;
template <typename W, typename M>
inline constexpr bool is_attention_layer<multi_head_attention_layer<W, M>> = true;

template <typename L>
inline constexpr bool is_token_embedding = false;
template <typename T, std::size_t V, auto D>
inline constexpr bool is_token_embedding<token_embedding<T, V, D>> = true;
template <typename L>
inline constexpr bool is_position_embedding = false;
template <typename T, std::size_t N, auto D, typename Held>
inline constexpr bool is_position_embedding<position_embedding<T, N, D, Held>> = true;
template <typename L>
inline constexpr bool is_class_token = false;
template <typename T, auto D>
inline constexpr bool is_class_token<class_token<T, D>> = true;
template <typename L>
inline constexpr bool is_patch_embedding = false;
template <typename T, std::size_t C, std::size_t K, auto D, bool B>
inline constexpr bool is_patch_embedding<patch_embedding_1d<T, C, K, D, B>> = true;
template <typename T, std::size_t C, std::size_t H, std::size_t W, std::size_t PH, std::size_t PW, auto D, bool B>
inline constexpr bool is_patch_embedding<patch_embedding_2d<T, C, H, W, PH, PW, D, B>> = true;

// The llama layers (ctattn/layers/llama.hpp) in PyTorch's out x in layout, the one their int8 forms take (as
// `is_float_linear`'s).
template <typename L>
inline constexpr bool is_llama_attention = false;
template <typename T, auto D, std::size_t H, std::size_t KVH, std::size_t P, rotary_layout R, std::size_t B>
inline constexpr bool is_llama_attention<llama_attention<T, D, H, KVH, P, R, B, out_by_in>> = true;
template <typename L>
inline constexpr bool is_llama_block = false;
template <typename T, auto D, std::size_t H, std::size_t KVH, auto F, std::size_t P, rotary_layout R, std::size_t B>
inline constexpr bool is_llama_block<llama_block<T, D, H, KVH, F, P, R, B, out_by_in>> = true;
template <typename L>
inline constexpr bool is_llama_transformer = false;
template <typename T, std::size_t V, auto D, std::size_t N, std::size_t H, std::size_t KVH, auto F, std::size_t P,
          bool Tied, rotary_layout R, std::size_t B>
inline constexpr bool is_llama_transformer<llama_transformer<T, V, D, N, H, KVH, F, P, Tied, R, B>> = true;

// The scaled scores q_h k_h^T / sqrt(d_head) of every head, over the keys `mask` lets each query see, widened into
// the range named `name`.
// Rationale: sums in double over the float q and k, not through the kernel tier: this is calibration, run once on
// the host or in a constant expression, where the range's accuracy matters and the attention kernels (which fuse
// the scores into the softmax) keep no scores to read.
// Query head h scores the keys of key/value head h / (Heads / KeyValueHeads) (grouped-query attention; one each when
// they are as many).
template <std::size_t Heads, typename Mask, typename Q, typename K, typename Ranges, std::size_t KeyValueHeads = Heads>
constexpr void widen_scores(Ranges& ranges, std::string_view name, const Q& q, const K& k, const Mask& mask) noexcept {
  constexpr std::size_t d = Q::cols / Heads;
  constexpr std::size_t group = Heads / KeyValueHeads;
  const double scale = 1.0 / math::sqrt(static_cast<double>(d));
  basic_matrix<double, Q::rows, K::rows> scores{};
  for (std::size_t h = 0; h < Heads; ++h) {
    for (std::size_t i = 0; i < Q::rows; ++i) {
      const key_range visible = mask.keys(i, Q::rows, K::rows);
      for (std::size_t j = 0; j < K::rows; ++j) {
        bool seen = j >= visible.begin && j < visible.end;
        if constexpr (Mask::checks_each_key) seen = seen && mask.allowed(i, j);
        double s = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          s += static_cast<double>(q.elements[i][h * d + c]) * static_cast<double>(k.elements[j][h / group * d + c]);
        }
        // Rationale: a masked key is NaN, which observed_range skips; the visible ones of every head widen the range.
        scores.elements[i][j] = seen ? s * scale : std::numeric_limits<double>::quiet_NaN();
      }
    }
    ranges.widen(name, scores);
  }
}

template <typename L, typename X, typename Ranges, typename... Options>
constexpr auto record(const L& layer, const X& x, Ranges& ranges, const parameter_name& path,
                      const Options&... options) noexcept;

// Multi-head attention of `a` over `memory` (`a` itself for self-attention) with `weights` and `mask`, its points
// recorded under `path` by the names `names` gives (`points::self_attention_names`, or `cross_attention_names` for
// a decoder's attention over the memory); W_O's output under `path.<names.attention>`, or under `path` itself for
// an attention layer of its own (`output_is_the_layers`).
template <typename W, typename A, typename Memory, typename Mask, typename Ranges>
constexpr auto record_attention(const W& weights, const A& a, const Memory& memory, const Mask& mask, Ranges& ranges,
                                const parameter_name& path, const points::attention_points& names,
                                bool output_is_the_layers = false) noexcept {
  const auto q = ctattn::forward(weights.query, a);
  const auto k = ctattn::forward(weights.key, memory);
  ranges.widen(point_name(path, names.query).view(), q);
  ranges.widen(point_name(path, names.key).view(), k);
  ranges.widen(point_name(path, names.value).view(), ctattn::forward(weights.value, memory));
  widen_scores<W::query_heads>(ranges, point_name(path, names.scores).view(), q, k, mask);
  const auto full = [&] {
    if constexpr (std::is_same_v<Mask, no_mask_type>) {
      return multi_head_attention(a, memory, memory, weights, with_weights);
    } else {
      return multi_head_attention(a, memory, memory, weights, mask, with_weights);
    }
  }();
  ranges.widen(point_name(path, names.context).view(), full.heads_concat);
  ranges.widen(output_is_the_layers ? output_name(path) : point_name(path, names.attention).view(), full.output);
  return full.output;
}

// A feed-forward block on `a`, its points under `path` (`.hidden`, `.activation`, `.feed_forward`).
template <typename F, typename A, typename Ranges>
constexpr auto record_feed_forward(const F& ff, const A& a, Ranges& ranges, const parameter_name& path) noexcept {
  const auto hidden = ctattn::forward(ff.linear1, a);
  const auto activated = ctattn::forward(ff.activation, hidden);
  const auto out = ctattn::forward(ff.linear2, activated);
  ranges.widen(point_name(path, points::hidden).view(), hidden);
  ranges.widen(point_name(path, points::activation).view(), activated);
  ranges.widen(point_name(path, points::feed_forward).view(), out);
  return out;
}

// The mask type of a multi_head_attention_layer.
template <typename L>
struct attention_layer_mask;
template <typename W, typename M>
struct attention_layer_mask<multi_head_attention_layer<W, M>> {
  using type = M;
};

// The elements I to the end of a chain (a model's members, a sequential's layers), each under its name, in turn.
template <std::size_t I, typename C, typename X, typename Ranges, typename... Options>
constexpr auto record_chain(const C& chain, const X& x, Ranges& ranges, const parameter_name& path,
                            const Options&... options) noexcept {
  const auto y = record(chain_element<I>(chain), x, ranges, point_name(path, chain_name<C>(I)), options...);
  if constexpr (I + 1 == chain_length<C>()) {
    return y;
  } else {
    return record_chain<I + 1>(chain, y, ranges, path, options...);
  }
}

// The rule of following a chain's elements for Operation (quantizing, calibrating): a model's forward is its
// members run in turn, not a forward of its own.
template <typename Operation, typename C>
using chain_forward_rules =
    rule_list<shape_error::model_forward_must_be_its_members<Operation, C, !Model<C> || DerivedForward<C>>>;

// The steps of a transformer layer's residual blocks (ctattn/layers/detail/blocks.hpp) that widen `path.norm<k>`
// and `path.sum<k>` as the layer's own steps compute them: the layer's flow, run once more with its ranges
// recorded. The last block's norm (post-norm) or sum (pre-norm) is the layer's output, recorded by the caller.
template <typename L>
inline constexpr std::size_t last_block = attends_to_memory<L> ? 3 : 2;  // a decoder layer's third, an encoder's second
// A llama block's norms are named as its members (`attention_norm`, `ffn_norm`), and it is pre-norm.
template <typename L>
[[nodiscard]] constexpr std::string_view block_norm_point(std::size_t k) noexcept {
  if constexpr (is_llama_block<L>) {
    return k == 1 ? points::attention_norm : points::ffn_norm;
  } else {
    return points::norm_point(k);
  }
}
template <typename L>
inline constexpr bool block_norm_first = [] {
  if constexpr (is_llama_block<L>) {
    return true;
  } else {
    return bool{L::norm_first};
  }
}();
template <typename L, typename Ranges>
constexpr auto recording_blocks(const L& layer, Ranges& ranges, const parameter_name& path) noexcept {
  const auto steps = layer.blocks();
  constexpr bool norm_first = block_norm_first<L>;
  return block_steps{[&ranges, &path, steps](auto at_block, const auto& in) {
                       const auto normed = steps.norm(at_block, in);
                       if (norm_first || decltype(at_block)::value != last_block<L>) {
                         ranges.widen(point_name(path, block_norm_point<L>(decltype(at_block)::value)).view(), normed);
                       }
                       return normed;
                     },
                     [&ranges, &path, steps](auto at_block, const auto& in, const auto& addend) {
                       const auto sum = steps.add(at_block, in, addend);
                       if (!norm_first || decltype(at_block)::value != last_block<L>) {
                         ranges.widen(point_name(path, points::sum_point(decltype(at_block)::value)).view(), sum);
                       }
                       return sum;
                     }};
}

// An encoder layer's points (`.norm1`, the attention's, `.sum1`, `.norm2` or `.sum2`, the feed-forward block's) and
// its output: the layer's flow with the recording steps.
template <typename L, typename X, typename Ranges>
constexpr auto record_encoder_layer(const L& layer, const X& x, Ranges& ranges, const parameter_name& path) noexcept {
  using result = basic_matrix<typename L::value_type, X::row_extent, L::output_extent>;
  const result y = residual_blocks<L::norm_first>(
      recording_blocks(layer, ranges, path), with_extents<X::row_extent, L::output_extent>(x),
      [&](const result& in) {
        return record_attention(layer.self_attn.weights, in, in, typename L::mask_type{}, ranges, path,
                                points::self_attention_names);
      },
      [&](const result& in) { return record_feed_forward(layer.ff, in, ranges, path); });
  ranges.widen(output_name(path), y);
  return y;
}

// A decoder layer's points (the self-attention's as an encoder layer's, then the attention over the memory's, the
// sums and norms, the feed-forward block's) and its output; `options` carry the memory and the masks.
template <typename L, typename X, typename Ranges, typename... Options>
constexpr auto record_decoder_layer(const L& layer, const X& x, Ranges& ranges, const parameter_name& path,
                                    const Options&... options) noexcept {
  using result = basic_matrix<typename L::value_type, X::row_extent, L::output_extent>;
  const auto& memory = *find_first<is_memory_option>(options...).memory;
  const auto self_mask = [&] {
    if constexpr ((is_tgt_mask_option<Options>::value || ...)) {
      return combine_masks(typename L::mask_type{}, find_first<is_tgt_mask_option>(options...).mask);
    } else {
      return typename L::mask_type{};
    }
  }();
  const auto memory_mask = [&] {
    if constexpr ((is_memory_mask_option<Options>::value || ...)) {
      return find_first<is_memory_mask_option>(options...).mask;
    } else {
      return no_mask;
    }
  }();
  const result y = residual_blocks<L::norm_first>(
      recording_blocks(layer, ranges, path), with_extents<X::row_extent, L::output_extent>(x),
      [&](const result& in) {
        return record_attention(layer.self_attn.weights, in, in, self_mask, ranges, path, points::self_attention_names);
      },
      [&](const result& in) {
        return record_attention(layer.multihead_attn, in, memory, memory_mask, ranges, path,
                                points::cross_attention_names);
      },
      [&](const result& in) { return record_feed_forward(layer.ff, in, ranges, path); });
  ranges.widen(output_name(path), y);
  return y;
}

// A llama attention's points under `path` (ctattn/quantized/llama.hpp's table) and its output: the float layer's
// forward with an observer, so that the output is `forward`'s, bit for bit. The query and the key are widened by the
// projections and by their rotations, the rows the int8 rotation writes in the projection's quantization.
template <std::size_t Heads, std::size_t KeyValueHeads, typename Ranges>
struct llama_attention_recorder {
  Ranges& ranges;
  const parameter_name& path;
  template <typename Q, typename K, typename V>
  constexpr void projected(const Q& q, const K& k, const V& v) const noexcept {
    ranges.widen(point_name(path, points::query).view(), q);
    ranges.widen(point_name(path, points::key).view(), k);
    ranges.widen(point_name(path, points::value).view(), v);
  }
  template <typename Q, typename K, typename C>
  constexpr void attended(const Q& q, const K& k, const C& concat) const noexcept {
    ranges.widen(point_name(path, points::query).view(), q);
    ranges.widen(point_name(path, points::key).view(), k);
    widen_scores<Heads, causal_mask, Q, K, Ranges, KeyValueHeads>(ranges, point_name(path, points::scores).view(), q, k,
                                                                  causal);
    ranges.widen(point_name(path, points::context).view(), concat);
  }
};
template <typename L, typename X, typename Ranges>
constexpr auto record_llama_attention(const L& layer, const X& x, Ranges& ranges, const parameter_name& path) noexcept {
  const auto y = layer.observed_forward(llama_attention_recorder<L::heads, L::key_value_heads, Ranges>{ranges, path},
                                        with_extents<X::row_extent, L::input_extent>(x));
  ranges.widen(output_name(path), y);
  return y;
}

// A llama block's points (`.attention_norm`, the attention's under `.attention`, `.sum1`, `.ffn_norm`, the
// feed-forward block's under `.feed_forward`) and its output: the block's flow with the recording steps.
template <typename L, typename X, typename Ranges>
constexpr auto record_llama_block(const L& layer, const X& x, Ranges& ranges, const parameter_name& path) noexcept {
  using result = basic_matrix<typename L::value_type, X::row_extent, L::output_extent>;
  const result y = residual_blocks<true>(
      recording_blocks(layer, ranges, path), with_extents<X::row_extent, L::output_extent>(x),
      [&](const result& in) { return record(layer.attention, in, ranges, point_name(path, points::attention)); },
      [&](const result& in) { return record(layer.feed_forward, in, ranges, point_name(path, points::feed_forward)); });
  ranges.widen(output_name(path), y);
  return y;
}

// A llama model's points: its token table (`.tok_embeddings.weight`), its blocks' under `.layers.<i>`, `.norm`, and
// the logits under its path (untied, also under `.output`, the head's name).
template <typename L, typename X, typename Ranges>
constexpr auto record_llama_transformer(const L& layer, const X& ids, Ranges& ranges,
                                        const parameter_name& path) noexcept {
  const auto x = record(layer.tok_embeddings, ids, ranges, point_name(path, points::tok_embeddings));
  const auto h = record(layer.layers, x, ranges, point_name(path, points::layers));
  const auto normed = record(layer.norm, h, ranges, point_name(path, points::norm));
  basic_matrix<typename L::value_type, std::tuple_size_v<X>, L::output_extent> logits{};
  layer.template head<arithmetic_of<>>(logits, normed);
  if constexpr (!L::tied) ranges.widen(point_name(path, points::output).view(), logits);
  ranges.widen(output_name(path), logits);
  return logits;
}

// One layer: its output under `path`, and its own points under `path.point`. `options` carry a decoder's memory
// and masks.
template <typename L, typename X, typename Ranges, typename... Options>
constexpr auto record(const L& layer, const X& x, Ranges& ranges, const parameter_name& path,
                      const Options&... options) noexcept {
  if constexpr (is_chain<L> && !first_broken<chain_forward_rules<op::record_ranges, L>>::check()) {
    return layer.forward(x, options...);
  } else if constexpr (is_chain<L>) {
    const auto y = record_chain<0>(layer, x, ranges, path, options...);
    // A chain's output is its last layer's, under the chain's own name too (`layers` as `layers.1`): the name the
    // member after it reads its input quantization by. The whole model's output has the name `output`.
    ranges.widen(output_name(path), y);
    return y;
  } else if constexpr (is_encoder_layer<L>) {
    return record_encoder_layer(layer, x, ranges, path);
  } else if constexpr (is_llama_attention<L>) {
    return record_llama_attention(layer, x, ranges, path);
  } else if constexpr (is_llama_block<L>) {
    return record_llama_block(layer, x, ranges, path);
  } else if constexpr (is_llama_transformer<L>) {
    return record_llama_transformer(layer, x, ranges, path);
  } else if constexpr (is_decoder_layer<L>) {
    return record_decoder_layer(layer, x, ranges, path, options...);
  } else if constexpr (is_feed_forward<L>) {
    const auto hidden = ctattn::forward(layer.linear1, x);
    const auto activated = ctattn::forward(layer.activation, hidden);
    const auto y = ctattn::forward(layer.linear2, activated);
    ranges.widen(point_name(path, points::hidden).view(), hidden);
    ranges.widen(point_name(path, points::activation).view(), activated);
    ranges.widen(output_name(path), y);
    return y;
  } else if constexpr (is_gated_feed_forward<L>) {
    const auto first = ctattn::forward(layer.w1, x);
    const auto gate = ctattn::forward(layer.activation, first);
    const auto up = ctattn::forward(layer.w3, x);
    const auto product = hadamard(gate, up);
    const auto y = ctattn::forward(layer.w2, product);
    ranges.widen(point_name(path, points::w1).view(), first);
    ranges.widen(point_name(path, points::activation).view(), gate);
    ranges.widen(point_name(path, points::w3).view(), up);
    ranges.widen(point_name(path, points::product).view(), product);
    ranges.widen(output_name(path), y);
    return y;
  } else if constexpr (is_residual<L>) {
    const auto y = ctattn::add(x, record(layer.inner, x, ranges, point_name(path, points::inner), options...));
    ranges.widen(output_name(path), y);
    return y;
  } else if constexpr (is_attention_layer<L>) {
    using mask = typename attention_layer_mask<L>::type;
    const auto a = with_extents<X::row_extent, L::input_extent>(x);
    return record_attention(layer.weights, a, a, mask{}, ranges, path, points::self_attention_names, true);
  } else if constexpr (point_hook::records<L, X, point_recorder<Ranges>>) {
    // A layer of one's own with points inside it: its hook records them and gives its output.
    point_recorder<Ranges> points{ranges, path};
    const auto y = point_hook::call(layer, x, points);
    ranges.widen(output_name(path), y);
    return y;
  } else {
    if constexpr (is_token_embedding<L> || is_position_embedding<L>) {
      ranges.widen(point_name(path, points::weight).view(), layer.weight);
    }
    const auto y = run_layer(layer, x);
    ranges.widen(output_name(path), y);
    return y;
  }
}
}  // namespace detail

/// Runs `model` on `x` with its float forward and widens `ranges` by every activation its int8 form quantizes (see
/// this header for the names); returns the model's output. Constexpr: a small calibration set can run in a
/// constant expression.
///
/// | operand  | shape                                          |
/// |----------|------------------------------------------------|
/// | `x`      | the model's input (ids for an embedding)       |
/// | result   | the model's output, as `forward` gives it      |
///
/// Example: `const auto logits = ctattn::record_ranges(toy::sorter_model, ids, ranges);`
template <typename M, typename X, std::size_t Capacity, typename... Options>
constexpr auto record_ranges(const M& model, const X& x, activation_ranges<Capacity>& ranges,
                             const Options&... options) noexcept {
  constexpr bool memory = (detail::is_memory_option<Options>::value || ...);
  if constexpr (!detail::model_base_rule<op::record_ranges, M>::check()) {
    return x;
  } else if constexpr (!shape_error::decoder_needs_its_memory<op::record_ranges,
                                                              (memory || !detail::attends_to_memory<M>)>::check()) {
    return x;
  } else {
    if constexpr (FixedMatrix<X>) ranges.widen(points::input, x);
    if constexpr (memory)
      ranges.widen(points::memory, *detail::find_first<detail::is_memory_option>(options...).memory);
    return detail::record(model, x, ranges, parameter_name{}, options...);
  }
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_RANGES_HPP
