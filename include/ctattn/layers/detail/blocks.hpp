// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_DETAIL_BLOCKS_HPP
#define CTATTN_LAYERS_DETAIL_BLOCKS_HPP

// The flow of a transformer layer, written once: a chain of residual blocks, each a sublayer with its LayerNorm
// and its residual sum. The float layers' `forward` and `step`, their int8 forms' `forward` and `step`, and the
// range recorder (ctattn/quantized/ranges.hpp) all run it, each with the steps of its own arithmetic, so that the
// five cannot drift apart (an encoder layer has two blocks, the attention and the feed-forward block; a decoder
// layer three, with the attention over the memory between them).

#include <cstddef>
#include <type_traits>

namespace ctattn::detail {

// Block k of a layer, counted from 1 as PyTorch counts norm1, norm2, norm3.
template <std::size_t K>
using block_index = std::integral_constant<std::size_t, K>;

// The member of block k among a layer's members in block order (`block_member<2>(norm1, norm2, norm3)` is norm2).
template <std::size_t K, typename First, typename... Rest>
[[nodiscard]] constexpr const auto& block_member(const First& first, const Rest&... rest) noexcept {
  static_assert(K >= 1 && K <= 1 + sizeof...(Rest), "a block index counts from 1 to the number of blocks");
  if constexpr (K == 1) {
    return first;
  } else {
    return block_member<K - 1>(rest...);
  }
}

// What a flow's caller supplies: `norm(block_index<k>, in)`, block k's LayerNorm of `in`, and
// `add(block_index<k>, in, addend)`, block k's residual sum. Each is a callable taking the block as a
// `block_index`, so that the int8 forms choose each sum's quantization at compile time.
template <typename Norm, typename Add>
struct block_steps {
  Norm norm;
  Add add;
};
template <typename Norm, typename Add>
block_steps(Norm, Add) -> block_steps<Norm, Add>;

// One block: pre-norm (NormFirst), in + sublayer(norm(in)); post-norm, norm(in + sublayer(in)).
template <bool NormFirst, std::size_t K, typename Steps, typename In, typename Sublayer>
[[nodiscard, gnu::always_inline]] constexpr inline auto residual_block(const Steps& steps, const In& in,
                                                                       const Sublayer& sublayer) noexcept {
  constexpr block_index<K> at_block{};
  if constexpr (NormFirst) {
    return steps.add(at_block, in, sublayer(steps.norm(at_block, in)));
  } else {
    return steps.norm(at_block, steps.add(at_block, in, sublayer(in)));
  }
}

// Blocks 1 to K, block k running the k-th sublayer on block k - 1's output.
// Rationale: as `run_chain` (ctattn/layers/layer.hpp), each block's input is a local of its own step and the steps are
// always inlined, so that the layer's flow is one frame (its `forward`) whose temporaries of disjoint lifetimes the
// compiler stores in the same place: the attention's and the feed-forward block's share their bytes, as the layers'
// footprints count them. Nested calls (block K inside the call that holds block K - 1's temporaries) cost the int8
// sorter 432 bytes of stack more on the Cortex-M4F than its footprint figure.
template <bool NormFirst, std::size_t K, typename Steps, typename In, typename... Sublayers>
[[nodiscard, gnu::always_inline]] constexpr inline auto residual_blocks_to(const Steps& steps, const In& in,
                                                                           const Sublayers&... sublayers) noexcept {
  if constexpr (K == 1) {
    return residual_block<NormFirst, 1>(steps, in, block_member<1>(sublayers...));
  } else {
    const auto input = residual_blocks_to<NormFirst, K - 1>(steps, in, sublayers...);
    return residual_block<NormFirst, K>(steps, input, block_member<K>(sublayers...));
  }
}

// The blocks of a layer in order, block k running the k-th sublayer on block k - 1's output:
//   pre-norm:  x_k = x_{k-1} + sublayer_k(norm_k(x_{k-1}))
//   post-norm: x_k = norm_k(x_{k-1} + sublayer_k(x_{k-1}))
// The last block's output is the layer's.
template <bool NormFirst, typename Steps, typename In, typename... Sublayers>
[[nodiscard, gnu::always_inline]] constexpr inline auto residual_blocks(const Steps& steps, const In& in,
                                                                        const Sublayers&... sublayers) noexcept {
  return residual_blocks_to<NormFirst, sizeof...(Sublayers)>(steps, in, sublayers...);
}

}  // namespace ctattn::detail

#endif  // CTATTN_LAYERS_DETAIL_BLOCKS_HPP
