// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP
#define CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP

/// \file
/// The int8 fully-connected product on weights packed for a dot-product instruction, written once over a backend's
/// operations (kernels/int8.hpp chooses the backend; today AVX-512 VNNI, kernels/avx512.hpp). A layer's weights
/// are constants, so `ctattn::qlinear` packs them where it is made (by the compiler, for a constexpr layer), with
/// everything the requantization needs per channel: the kernel reads one stream of weights, broadcasts four
/// inputs at a time, and requantizes a vector of channels at once.
///
/// | entity                               | meaning                                                              |
/// |--------------------------------------|----------------------------------------------------------------------|
/// | `packed_weights<N, K, Lanes, Offset>`| N x K int8 weights in blocks of Lanes channels x 4 inputs, + Offset   |
/// | `packed_product<Ops, M, K, N>(...)`  | y = requantize(x W^T + start), M x K by N x K, with Ops's instructions |
///
/// The layout (Lanes channels per vector, K rounded up to 4, N to Lanes, the padding 0):
///
/// | bytes                          | holds                                                           |
/// |--------------------------------|-----------------------------------------------------------------|
/// | `weight[(b G + g) 4 Lanes + 4 l + q]` | w[b Lanes + l][4 g + q] + Offset, for block b, group g of G |
/// | `start[c]`                     | the layer's folded bias of channel c                            |
/// | `multiplier`, `left`, `right`, `round_bit`, `right_less_one` | channel c's requantization |
///
/// A lane of the dot-product instruction sums 4 products of 4 consecutive inputs (broadcast to every lane) with
/// the 4 weights of its channel. x86's `vpdpbusd` multiplies unsigned bytes by signed ones: the weights are the
/// unsigned operand, stored with Offset = 128 (w + 128 in [1, 255]), and each row's sum then holds 128 sum_t x[t]
/// too, which the kernel takes away once per row (`row_sums`).
///
/// What a backend `Ops` provides (kernels/avx512.hpp, avx2.hpp, neon.hpp):
///
/// | member                                   | meaning                                                        |
/// |------------------------------------------|----------------------------------------------------------------|
/// | `lanes`, `weight_offset`                 | channels per vector; what is added to each stored weight       |
/// | `tile_rows`, `accumulators`, `max_panel` | the tile: rows at most, accumulators in all, blocks per row    |
/// | `accumulator`, `requantizer`             | a vector of int32 sums; a block's requantization in registers  |
/// | `row_term(x, k)`                         | what the weight offset adds to a row's sums, negated           |
/// | `load_start`, `add_row_term`             | a block's starts, plus a row's term                            |
/// | `load_weights(p)`, `broadcast_four(p)`   | a block's weights for 4 inputs; 4 inputs in every lane         |
/// | `dot_four(sum, weights, inputs)`         | sum + per lane the dot product of its 4 weights and the inputs |
/// | `make_requantizer(p, c, zero)`, `store_requantized(y, sum, r, valid)` | requantize and store a block |
///
/// Example: `static_assert(sizeof(ctattn::detail::int8_packed::packed_weights<3, 5, 16, 128>::weight) == 2 * 64);`
// Rationale: the unsigned operand is the weights, not the inputs as in run-time libraries (which add 128 to every
// input and store -128 sum_k w with the weights): a constant shift of constant weights costs nothing at run time,
// and the input's row sums are M K additions against the product's M N K.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail::int8_packed {

/// N x K int8 weights packed for a backend with Lanes channels per vector (see the file's table), with the
/// per-channel start and requantization in lane order. Made from the layer's weights, folded biases and multipliers.
template <std::size_t N, std::size_t K, std::size_t Lanes, int Offset>
struct packed_weights {
  static constexpr std::size_t lanes = Lanes;
  static constexpr std::size_t blocks = (N + Lanes - 1) / Lanes;
  static constexpr std::size_t groups = (K + 3) / 4;
  static constexpr std::size_t columns = blocks * Lanes;
  static constexpr int offset = Offset;

  std::int8_t weight[blocks * groups * 4 * Lanes]{};
  std::int32_t start[columns]{};
  std::int32_t multiplier[columns]{};
  std::int32_t left[columns]{};
  std::int32_t right[columns]{};
  std::int32_t right_less_one[columns]{};
  std::int32_t round_bit[columns]{};

  constexpr packed_weights() noexcept { pack_padding(); }

  constexpr packed_weights(const std::int8_t (&w)[N][K], const std::int32_t (&folded_bias)[N],
                           const math::quantized_multiplier (&multipliers)[N]) noexcept {
    pack_padding();
    for (std::size_t c = 0; c < N; ++c) {
      const std::size_t base = c / Lanes * groups * 4 * Lanes + c % Lanes * 4;
      for (std::size_t t = 0; t < K; ++t) {
        weight[base + t / 4 * 4 * Lanes + t % 4] = static_cast<std::int8_t>(w[c][t] + Offset);
      }
      start[c] = folded_bias[c];
      const int shift = multipliers[c].shift;
      multiplier[c] = multipliers[c].multiplier;
      left[c] = shift > 0 ? shift : 0;
      right[c] = shift > 0 ? 0 : -shift;
      right_less_one[c] = right[c] > 0 ? right[c] - 1 : 0;
      round_bit[c] = right[c] > 0 ? 1 : 0;
    }
  }

  friend constexpr bool operator==(const packed_weights&, const packed_weights&) = default;

 private:
  // Every weight byte the value of weight 0 (the padding, and all of a default layer).
  constexpr void pack_padding() noexcept {
    for (auto& byte : weight) byte = static_cast<std::int8_t>(Offset);
  }
};

/// What a layer keeps where the build has no packed kernel: nothing.
struct no_packed_weights {
  constexpr no_packed_weights() noexcept = default;
  template <typename... From>
  constexpr explicit no_packed_weights(const From&...) noexcept {}
  friend constexpr bool operator==(no_packed_weights, no_packed_weights) = default;
};

/// The packed form of an N x K layer for the backend `Ops` (`void`: none).
template <typename Ops, std::size_t N, std::size_t K>
struct packed_type {
  using type = no_packed_weights;
};
template <typename Ops, std::size_t N, std::size_t K>
  requires(!std::is_void_v<Ops>)
struct packed_type<Ops, N, K> {
  using type = packed_weights<N, K, Ops::lanes, Ops::weight_offset>;
  // Rationale: no alignment above an int32's (the kernel's loads are unaligned ones): a layer holding a 64-byte
  // aligned member would pad every model that holds the layer, and a model's footprint, the sum of its layers'
  // sizes, would no longer be its size (examples/verified_model/int8_sorter.hpp asserts they are equal).
  static_assert(alignof(type) == alignof(std::int32_t));
};

/// One tile: rows [0, MR) of x against NV blocks of channels from block `block`, written to y; the last block has
/// `Valid` channels (Lanes: all).
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, std::size_t K, typename P>
inline void packed_tile(const std::int8_t* x, std::size_t x_stride, const std::int32_t* row_terms, const P& p,
                        std::size_t block, std::int32_t zero, std::int8_t* y, std::size_t y_stride) noexcept {
  using acc = typename Ops::accumulator;
  constexpr std::size_t lanes = P::lanes;
  constexpr std::size_t whole = K / 4;
  constexpr std::size_t block_bytes = P::groups * 4 * lanes;
  acc sums[MR][NV];
  for (std::size_t j = 0; j < NV; ++j) {
    const acc start = Ops::load_start(p.start + (block + j) * lanes);
    for (std::size_t i = 0; i < MR; ++i) sums[i][j] = Ops::add_row_term(start, row_terms[i]);
  }
  const std::int8_t* w = p.weight + block * block_bytes;
  for (std::size_t g = 0; g < whole; ++g) {
    acc w_vectors[NV];
    for (std::size_t j = 0; j < NV; ++j) w_vectors[j] = Ops::load_weights(w + j * block_bytes + g * 4 * lanes);
    for (std::size_t i = 0; i < MR; ++i) {
      const acc inputs = Ops::broadcast_four(x + i * x_stride + 4 * g);
      for (std::size_t j = 0; j < NV; ++j) sums[i][j] = Ops::dot_four(sums[i][j], w_vectors[j], inputs);
    }
  }
  if constexpr (K % 4 != 0) {
    acc w_vectors[NV];
    for (std::size_t j = 0; j < NV; ++j) w_vectors[j] = Ops::load_weights(w + j * block_bytes + whole * 4 * lanes);
    for (std::size_t i = 0; i < MR; ++i) {
      // The last K % 4 inputs and zeros (nothing past the row is read).
      std::int8_t four[4]{};
      for (std::size_t q = 0; q < K % 4; ++q) four[q] = x[i * x_stride + 4 * whole + q];
      const acc inputs = Ops::broadcast_four(four);
      for (std::size_t j = 0; j < NV; ++j) sums[i][j] = Ops::dot_four(sums[i][j], w_vectors[j], inputs);
    }
  }
  for (std::size_t j = 0; j < NV; ++j) {
    const std::size_t c = (block + j) * lanes;
    const typename Ops::requantizer r = Ops::make_requantizer(p, c, zero);
    for (std::size_t i = 0; i < MR; ++i) {
      Ops::store_requantized(y + i * y_stride + c, sums[i][j], r, j == NV - 1 ? Valid : lanes);
    }
  }
}

/// The tile of a product of M rows by `blocks` blocks of channels: `rows` rows x `panel` blocks, within the
/// backend's accumulators.
// Rationale: a tile's inner step loads `panel` vectors of weights and broadcasts `rows` groups of inputs for
// rows x panel instructions, so the squarest tile that fits does the most work per load: 6 x 4 on AVX-512 where the
// blocks come in fours (a panel of 3 would leave a panel of 1, a load per instruction) and the rows fill a tall
// tile, else the backend's tallest (8 x 3); fewer rows than that are one tile, as wide as their accumulators allow
// (7 rows: 3 blocks; one row: 8 blocks).
template <typename Ops, std::size_t M, std::size_t Blocks>
struct tile_shape {
  static constexpr std::size_t square_rows = Ops::accumulators / 4;
  static constexpr bool square = M >= Ops::tile_rows && Blocks % 4 == 0;
  static constexpr std::size_t rows = square ? square_rows : (M < Ops::tile_rows ? M : Ops::tile_rows);
  static constexpr std::size_t wide = Ops::accumulators / rows;
  static constexpr std::size_t panel = square ? 4 : (wide < 1 ? 1 : (wide > Ops::max_panel ? Ops::max_panel : wide));
};

/// Every row of x against the NV blocks from `block`: tiles of `Rows` rows, then the rest.
template <typename Ops, std::size_t Rows, std::size_t M, std::size_t NV, std::size_t Valid, std::size_t K,
          std::size_t XS, std::size_t YS, typename P>
inline void packed_panel(const std::int8_t* x, const std::int32_t* row_terms, const P& p, std::size_t block,
                         std::int32_t zero, std::int8_t* y) noexcept {
  constexpr std::size_t rows = Rows;
  for (std::size_t i = 0; i + rows <= M; i += rows) {
    packed_tile<Ops, rows, NV, Valid, K>(x + i * XS, XS, row_terms + i, p, block, zero, y + i * YS, YS);
  }
  if constexpr (M % rows != 0) {
    constexpr std::size_t i = M - M % rows;
    packed_tile<Ops, M % rows, NV, Valid, K>(x + i * XS, XS, row_terms + i, p, block, zero, y + i * YS, YS);
  }
}

/// y[r][c] = requantize(start[c] + sum_t x[r][t] w[c][t]) for r < M, c < N (`kernels::int8_fully_connected`'s
/// contract) on the packed weights p; rows of x and y XS and YS elements apart.
// Rationale: the panel of channels is the outer loop, so that its weights (NV blocks, up to 8 KiB per 128 inputs)
// stay in L1 for every tile of rows; a panel is as wide as the registers allow (Ops::accumulators over the rows
// of a tile), so that one row (a decoding step) has enough independent sums to hide the instruction's latency.
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, typename P>
inline void packed_product(const std::int8_t* x, const P& p, std::int32_t zero, std::int8_t* y) noexcept {
  std::int32_t row_terms[M];
  for (std::size_t r = 0; r < M; ++r) row_terms[r] = Ops::row_term(x + r * XS, K);
  constexpr std::size_t blocks = P::blocks;
  constexpr std::size_t rows = tile_shape<Ops, M, blocks>::rows;
  constexpr std::size_t panel = tile_shape<Ops, M, blocks>::panel;
  constexpr std::size_t last_valid = N % P::lanes == 0 ? P::lanes : N % P::lanes;
  constexpr std::size_t full = blocks / panel * panel;
  // Whole panels; the last of them holds the partial block when the blocks divide evenly.
  for (std::size_t b = 0; b < full; b += panel) {
    if (b + panel == blocks) {
      packed_panel<Ops, rows, M, panel, last_valid, K, XS, YS>(x, row_terms, p, b, zero, y);
    } else {
      packed_panel<Ops, rows, M, panel, P::lanes, K, XS, YS>(x, row_terms, p, b, zero, y);
    }
  }
  if constexpr (blocks % panel != 0) {
    packed_panel<Ops, rows, M, blocks % panel, last_valid, K, XS, YS>(x, row_terms, p, full, zero, y);
  }
}

}  // namespace ctattn::detail::int8_packed

#endif  // CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP
