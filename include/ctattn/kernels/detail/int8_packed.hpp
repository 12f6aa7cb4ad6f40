// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP
#define CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP

/// \file
/// The int8 fully-connected product on weights packed for a dot-product instruction, written once over a backend's
/// operations (kernels/int8.hpp chooses the backend: AVX-512 VNNI, AVX-VNNI, AArch64 `smmla` or `sdot`, or AVX2's
/// `vpmaddwd` where there is no dot product of bytes). A layer's weights are constants, so `ctattn::qlinear` packs them where
/// it is made (by the compiler, for a constexpr layer), with everything the requantization needs per channel: the
/// kernel reads one stream of weights, broadcasts a group of inputs (4 bytes) at a time, and requantizes a vector of
/// channels at once.
///
/// | entity                              | meaning                                                           |
/// |-------------------------------------|-------------------------------------------------------------------|
/// | `lane_format<Lanes, Offset, Group>` | channels in lane order, `output_requantizer`'s constants per lane |
/// | `paired_format`                     | AVX-512's: channels 0-7 even lanes, 8-15 odd, 64-bit constants    |
/// | `packed_weights<N, K, Format>`      | N x K int8 weights in blocks of Lanes channels x Group inputs     |
/// | `packed_product<Ops, M, K, N>(...)` | y = requantize(x W^T + start) with Ops's instructions (`exact()`) |
/// | `runtime_panel<Format, K, Blocks>`  | a panel of a run-time operand's channels, packed on the stack     |
/// | `runtime_product<Ops, M, K, N>(...)`| the same product where W is known only at run time (one multiplier) |
///
/// The layout (Lanes channels per vector, K rounded up to a whole group of G = Format::group inputs, N to Lanes, the
/// padding 0), where lane l of block b holds channel c = b Lanes + (the c % Lanes whose Format::lane_of is l):
///
/// | bytes                                 | holds                                                        |
/// |---------------------------------------|--------------------------------------------------------------|
/// | `weight[b B + G Lanes g + G l + q]`   | w[c][G g + q], for block b, group g; B = block_bytes         |
/// | `start[b Lanes + l]`                  | channel c's folded bias - input_offset sum_t w[c][t]         |
/// | `requant`                             | the Format's constants for each channel's requantization     |
///
/// A lane of the dot-product instruction sums 4 products of 4 consecutive inputs (broadcast to every lane) with
/// the 4 weights of its channel. x86's `vpdpbusd` multiplies unsigned bytes by signed ones: the inputs are the
/// unsigned operand, x + 128 (input_offset 128), staged tile by tile into a buffer on the stack (`stage_rows`), and
/// each channel's sum then holds 128 sum_t w[c][t] too, a constant taken away from its start when it is packed.
/// AVX2 without VNNI has no exact product of bytes (`vpmaddubsw` saturates at 16 bits): its groups are 2 inputs,
/// staged as int16 (4 bytes still), and 2 weights per channel, widened as they are loaded; `vpmaddwd` sums the 2
/// products of each lane into 32 bits. AArch64's `smmla` (i8mm) multiplies a 2 x 8 block of inputs (two rows) by
/// 8 x 2 weights (two channels) into a 2 x 2 block of sums: its groups are 8 inputs, a block of 4 channels is two
/// such pairs, and the rows are taken in pairs (`packed_pair_tile`).
///
/// What a backend `Ops` provides (kernels/avx512_int8.hpp, avx2_int8.hpp, neon_int8.hpp; `pack_block` optional,
/// declared with its default in kernels/detail/ops_defaults.hpp):
///
/// | member                                   | meaning                                                        |
/// |------------------------------------------|----------------------------------------------------------------|
/// | `format`                                 | its layout: `lane_format<...>` or `paired_format`              |
/// | `stage_row(dst, x, k, n)`                | a staged row of n bytes: k inputs as read, then inputs 0       |
/// | `tile_rows`, `accumulators`, `max_panel` | the tile: rows at most, accumulators in all, blocks per row    |
/// | `accumulator`, `requantizer`             | a vector of int32 sums; a block's requantization in registers  |
/// | `load_start`                             | a block's starts                                               |
/// | `load_weights(p)`, `broadcast_group(p)`  | a block's weights for a group; a group's 4 bytes in every lane |
/// | `dot_group(sum, inputs, weights)`        | sum + per lane the dot product of the group and its weights    |
/// | `make_requantizer(r, c, zero)`           | the requantization of the block from channel c                 |
/// | `store_requantized(y, sum, q, valid)`    | the block's first `valid` channels requantized and stored      |
/// | `add_row_start(sum, r)`                  | sum + r in every lane (a row's start, `runtime_product`)       |
///
/// Example:
/// \code
///   using ctattn::detail::int8_packed::packed_weights, ctattn::detail::int8_packed::paired_format;
///   static_assert(sizeof(packed_weights<3, 5, paired_format>::weight) == 2 * 64);  // 1 block, 2 groups of 4 inputs
/// \endcode
// Rationale: the unsigned operand is the inputs, so that the offset's term, 128 sum_t w[c][t], is a constant of the
// layer, folded into its starts by the compiler; the other way round (weights + 128) each row's sum of inputs had
// to be taken away at run time, a horizontal sum per row that cost 11% of a 64 x 64 x 64 layer (measured, Zen 4),
// where staging the inputs costs a vector instruction per 64 bytes.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail::int8_packed {

/// The layout of a backend whose channels sit in its lanes in order, each requantized as `output_requantizer` does
/// it in 32-bit lanes: the multiplier, the shift split into its left and right parts, and the right shift's
/// rounding bit (AVX-VNNI with 8 lanes and inputs + 128; `sdot` with 4 lanes, inputs as they are; `smmla` the same
/// with groups of 8; AVX2 with 8 lanes, groups of 2 inputs staged as int16).
///
/// Example:
/// \code
///   static_assert(ctattn::detail::int8_packed::lane_format<4, 0>::lane_of(3) == 3);
/// \endcode
template <std::size_t Lanes, int InputOffset, std::size_t Group = 4>
struct lane_format {
  static_assert(Group == 8 || Group == 4 || Group == 2, "a group is 8 or 4 int8 inputs, or 2 widened to int16");
  static constexpr std::size_t lanes = Lanes;
  static constexpr int input_offset = InputOffset;
  /// Inputs per group: a lane's products summed by one instruction.
  static constexpr std::size_t group = Group;
  /// Bytes of a staged input: 2 where the inputs are widened to int16 (groups of 2), else 1.
  static constexpr std::size_t input_bytes = Group == 2 ? 2 : 1;
  /// The lane of a block's channel c.
  static constexpr std::size_t lane_of(std::size_t c) noexcept { return c; }

  /// Each channel's requantization at its lane.
  template <std::size_t Columns>
  struct requantization {
    std::int32_t multiplier[Columns]{};
    std::int32_t left[Columns]{};
    std::int32_t right[Columns]{};
    std::int32_t right_less_one[Columns]{};
    std::int32_t round_bit[Columns]{};

    /// Channel c's multiplier, at `lane` (block * Lanes + lane_of); the output zero point is added at run time.
    constexpr void set(std::size_t, std::size_t lane, const math::quantized_multiplier& m, std::int32_t) noexcept {
      multiplier[lane] = m.multiplier;
      left[lane] = m.shift > 0 ? m.shift : 0;
      right[lane] = m.shift > 0 ? 0 : -m.shift;
      right_less_one[lane] = right[lane] > 0 ? right[lane] - 1 : 0;
      round_bit[lane] = right[lane] > 0 ? 1 : 0;
    }
    /// Every lane as `set` makes channel 0's with m (one multiplier for every channel: a run-time product's).
    // Rationale: from locals, one array at a time, so that each loop is a run of vector stores (as below).
    constexpr void set_all(const math::quantized_multiplier& m, std::int32_t zero) noexcept {
      set(0, 0, m, zero);
      const auto fill = [](std::int32_t(&array)[Columns]) {
        const std::int32_t value = array[0];
        for (std::size_t lane = 1; lane < Columns; ++lane) array[lane] = value;
      };
      fill(multiplier);
      fill(left);
      fill(right);
      fill(right_less_one);
      fill(round_bit);
    }
    /// Whether the kernel computes every channel exactly: always.
    [[nodiscard]] constexpr bool exact() const noexcept { return true; }
    friend constexpr bool operator==(const requantization&, const requantization&) = default;
  };
};

/// The layout of AVX-512 VNNI: 16 lanes, inputs + 128, a block's channels 0-7 in the even lanes and 8-15 in the
/// odd ones, so that the two halves requantize in 64-bit lanes and saturate to int8 in channel order (`vpmovsqb`).
/// Channel c's requantization as 64-bit constants: y = ((x << left) m + addend - (negative if the product is
/// below -2^30)) >> shift, which is `output_requantizer`'s two roundings and its zero point in one: the doubling
/// high product's floor((p + 2^30) / 2^31), then the division by 2^right with ties away from zero, then + zero, are
/// floor((p + 2^30 + 2^(30 + right) + zero 2^(31 + right) - [p < -2^30] 2^31) / 2^(31 + right)) (no 2^(30 + right)
/// nor 2^31 term where right = 0). |p| < 2^62, so the sum fits 64 bits while right <= 23; a layer with a channel
/// scaled below 2^-24 is not `exact()` and takes the plain kernel. Each 64-bit constant is two int32 (low first),
/// so that the layout keeps an int32's alignment.
///
/// Example:
/// \code
///   static_assert(ctattn::detail::int8_packed::paired_format::lane_of(9) == 3);  // channel 9: the second odd lane
/// \endcode
struct paired_format {
  static constexpr std::size_t lanes = 16;
  static constexpr int input_offset = 128;
  static constexpr std::size_t group = 4;
  static constexpr std::size_t input_bytes = 1;
  static constexpr std::size_t lane_of(std::size_t c) noexcept { return c < 8 ? 2 * c : 2 * (c - 8) + 1; }

  template <std::size_t Columns>
  struct requantization {
    std::int32_t left[Columns]{};            // at each channel's lane
    std::int32_t multiplier[2 * Columns]{};  // the others in channel order, 64 bits each
    std::int32_t addend[2 * Columns]{};
    std::int32_t negative[2 * Columns]{};
    std::int32_t shift[2 * Columns]{};
    std::int32_t folds_every_zero = 1;  // every channel's right shift is at most 23
    // Rationale: a word more, so that the form is a multiple of 8 bytes (40 per channel, 8 here): an int8 model's
    // layers sit beside 8-aligned members (scales kept as doubles' bits), and a layer of 4 bytes mod 8 would pad the
    // model past the sum of its layers' sizes, its footprint (examples/verified_model/int8_sorter.hpp asserts both
    // equal).
    std::int32_t unused = 0;

    constexpr void set(std::size_t c, std::size_t lane, const math::quantized_multiplier& m,
                       std::int32_t zero) noexcept {
      const int right = m.shift > 0 ? 0 : -m.shift;
      if (right > 23) folds_every_zero = 0;
      const std::int64_t zero_term =
          right > 23
              ? 0
              : static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(zero)) << (31 + right));
      left[lane] = m.shift > 0 ? m.shift : 0;
      put(multiplier, c, m.multiplier);
      put(addend, c, (std::int64_t{1} << 30) + (right > 0 ? std::int64_t{1} << (30 + right) : 0) + zero_term);
      put(negative, c, right > 0 ? std::int64_t{1} << 31 : 0);
      put(shift, c, 31 + right);
    }
    /// Every channel as `set` makes channel 0's with m (one multiplier for every channel: a run-time product's).
    // Rationale: channel 0's words from locals, one array at a time, so that each loop is a run of vector stores:
    // copied in one loop from the array's own first words, the 64 channels of a run-time panel took 9% of int8
    // attention's time at (16, 64) on Zen 4.
    constexpr void set_all(const math::quantized_multiplier& m, std::int32_t zero) noexcept {
      set(0, 0, m, zero);
      const std::int32_t first_left = left[0];
      for (std::size_t lane = 1; lane < Columns; ++lane) left[lane] = first_left;
      const auto fill = [](std::int32_t(&array)[2 * Columns]) {
        const std::int32_t low = array[0];
        const std::int32_t high = array[1];
        for (std::size_t c = 1; c < Columns; ++c) {
          array[2 * c] = low;
          array[2 * c + 1] = high;
        }
      };
      fill(multiplier);
      fill(addend);
      fill(negative);
      fill(shift);
    }
    /// Whether the kernel computes every channel exactly (the zero point folded into every addend).
    [[nodiscard]] constexpr bool exact() const noexcept { return folds_every_zero != 0; }
    friend constexpr bool operator==(const requantization&, const requantization&) = default;

    /// The 64-bit constant of channel c.
    constexpr std::int64_t get(const std::int32_t (&array)[2 * Columns], std::size_t c) const noexcept {
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::uint32_t>(array[2 * c + 1])) << 32 |
                                       static_cast<std::uint32_t>(array[2 * c]));
    }

   private:
    static constexpr void put(std::int32_t (&array)[2 * Columns], std::size_t c, std::int64_t value) noexcept {
      const auto bits = static_cast<std::uint64_t>(value);
      array[2 * c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
      array[2 * c + 1] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 32));
    }
  };
};

/// N x K int8 weights packed in a backend's Format (see the file's table), with the per-channel start at each
/// channel's lane and the Format's requantization. Made from the layer's weights, folded biases, multipliers and
/// output zero point.
template <std::size_t N, std::size_t K, typename Format>
struct packed_weights {
  static constexpr std::size_t lanes = Format::lanes;
  static constexpr std::size_t group = Format::group;
  static constexpr std::size_t blocks = (N + lanes - 1) / lanes;
  static constexpr std::size_t groups = (K + group - 1) / group;
  /// Bytes of a block's weights for one group, and of a row's staged inputs for one group.
  static constexpr std::size_t group_bytes = group * lanes;
  static constexpr std::size_t input_group_bytes = group * Format::input_bytes;
  static constexpr std::size_t columns = blocks * lanes;
  static constexpr int input_offset = Format::input_offset;
  /// Bytes from a block's weights to the next's: its groups, and a cache line more where that would be a multiple
  /// of 4 KiB.
  // Rationale: a one-row product reads up to 8 blocks side by side; 4 KiB apart (K = 512 x 16 channels is 8 KiB),
  // every stream maps to the same set of a 32 KiB 8-way L1 and they evict one another (measured on Zen 4:
  // 1 x 512 x 512 took 20% longer than 1 x 516 x 512).
  static constexpr std::size_t block_bytes = groups * group_bytes + (groups * group_bytes % 4096 == 0 ? 64 : 0);

  std::int8_t weight[blocks * block_bytes]{};
  std::int32_t start[columns]{};
  typename Format::template requantization<columns> requant{};

  constexpr packed_weights() noexcept = default;

  constexpr packed_weights(const std::int8_t (&w)[N][K], const std::int32_t (&folded_bias)[N],
                           const math::quantized_multiplier (&multipliers)[N], std::int32_t zero) noexcept {
    for (std::size_t c = 0; c < N; ++c) {
      const std::size_t lane = lane_of_channel(c);
      start[lane] = start_of(folded_bias[c], place(weight, c, w[c]));
      requant.set(c, lane, multipliers[c], zero);
    }
  }

  /// Channel c's lane among the columns: its block's first lane + Format::lane_of.
  static constexpr std::size_t lane_of_channel(std::size_t c) noexcept {
    return c / lanes * lanes + Format::lane_of(c % lanes);
  }
  /// Channel c's K weights (`row`; null: all 0) written where the layout keeps them in `weights` (blocks block_bytes
  /// apart), the last group's padding 0; returns their sum.
  static constexpr std::int32_t place(std::int8_t* weights, std::size_t c, const std::int8_t* row) noexcept {
    std::int8_t* const to = weights + c / lanes * block_bytes + Format::lane_of(c % lanes) * group;
    std::int32_t sum = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      for (std::size_t q = 0; q < group; ++q) {
        const std::size_t t = g * group + q;
        const std::int8_t v = row != nullptr && t < K ? row[t] : std::int8_t{0};
        to[g * group_bytes + q] = v;
        sum += v;
      }
    }
    return sum;
  }
  /// The start of a channel whose K weights sum to `sum`: its folded bias less input_offset sum, modulo 2^32 as the
  /// folded bias and the kernel's sums are (input_offset sum fits: |sum| <= 128 K).
  static constexpr std::int32_t start_of(std::int32_t folded_bias, std::int32_t sum) noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(folded_bias) -
                                     static_cast<std::uint32_t>(input_offset * sum));
  }

  /// Whether `packed_product` gives every output of this layer exactly (else the plain kernel does).
  [[nodiscard]] constexpr bool exact() const noexcept { return requant.exact(); }

  friend constexpr bool operator==(const packed_weights&, const packed_weights&) = default;
};

/// What a layer keeps where the build has no packed kernel: nothing.
struct no_packed_weights {
  constexpr no_packed_weights() noexcept = default;
  template <typename... From>
  constexpr explicit no_packed_weights(const From&...) noexcept {}
  friend constexpr bool operator==(no_packed_weights, no_packed_weights) = default;
};

/// What a layer keeps where the build's product reads, beside the weights, only whether every multiplier of the
/// layer is a `short_multiplier` (a row whose product ops set `reads_short_multipliers`: the Cortex-M DSP's,
/// Helium's). Made with the layer, as the packed weights are.
// Rationale: a word rather than a byte, so that a layer's size stays a whole number of its words and a model's
// footprint the sum of its layers' sizes.
struct multiplier_form {
  std::uint32_t short_multipliers = 0;  // 1: every multiplier is a `short_multiplier`

  constexpr multiplier_form() noexcept = default;
  template <std::size_t N, std::size_t K>
  constexpr multiplier_form(const std::int8_t (&)[N][K], const std::int32_t (&)[N],
                            const math::quantized_multiplier (&multipliers)[N], std::int32_t) noexcept {
    short_multipliers = 1;
    for (std::size_t c = 0; c < N; ++c) {
      if (!kernels::short_multiplier(multipliers[c])) short_multipliers = 0;
    }
  }
  friend constexpr bool operator==(const multiplier_form&, const multiplier_form&) = default;
};

/// The packed form of an N x K layer for the backend `Ops` (`void`: none).
template <typename Ops, std::size_t N, std::size_t K>
struct packed_type {
  using type = no_packed_weights;
};
template <typename Ops, std::size_t N, std::size_t K>
  requires(!std::is_void_v<Ops>)
struct packed_type<Ops, N, K> {
  using type = packed_weights<N, K, typename Ops::format>;
  // Rationale: no alignment above an int32's (the kernel's loads are unaligned ones): a layer holding a 64-byte
  // aligned member would pad every model that holds the layer, and a model's footprint, the sum of its layers'
  // sizes, would no longer be its size (examples/verified_model/int8_sorter.hpp asserts they are equal).
  static_assert(alignof(type) == alignof(std::int32_t));
  // ... and a multiple of 8 bytes, for the same reason beside 8-aligned members (see paired_format::unused).
  static_assert(sizeof(type) % 8 == 0);
};

/// Whether the kernel reads x through a staging buffer: where the Format offsets or widens the inputs, or K is not
/// a whole number of groups (the buffer's rows end in zeros).
template <typename Format, std::size_t K>
inline constexpr bool staged = Format::input_offset != 0 || Format::input_bytes != 1 || K % Format::group != 0;

/// Bytes from a staged row to the next: K rounded up to a whole group, Format::input_bytes each.
template <typename Format, std::size_t K>
inline constexpr std::size_t staged_stride =
    (K + Format::group - 1) / Format::group * Format::group * Format::input_bytes;

/// The rows of a tile at most, on every backend: a staging buffer holds at most this many rows...
inline constexpr std::size_t max_tile_rows = 8;
/// ... or this many, on a backend whose groups are 2 inputs widened to int16 (twice the bytes per row).
inline constexpr std::size_t max_widened_tile_rows = 4;

/// The stack bytes the staged rows of an M x K product take at most, on any backend: 8 rows of K bytes rounded up
/// to a group of 8 (the largest group of int8 inputs), or 4 rows of K int16 rounded up to 2.
template <std::size_t M, std::size_t K>
inline constexpr std::size_t most_staged_bytes = [] {
  const std::size_t bytes = (M < max_tile_rows ? M : max_tile_rows) * ((K + 7) / 8 * 8);
  const std::size_t widened = (M < max_widened_tile_rows ? M : max_widened_tile_rows) * ((K + 1) / 2 * 4);
  return bytes > widened ? bytes : widened;
}();

/// The rows [0, rows) of x, XS elements apart, written to `to` as the kernel reads them: by the backend's
/// `stage_row` (+ input_offset, or widened), or as they are with zeros after K.
template <typename Ops, std::size_t K, std::size_t XS>
inline void stage_rows(std::int8_t* to, const std::int8_t* x, std::size_t rows) noexcept {
  constexpr std::size_t stride = staged_stride<typename Ops::format, K>;
  for (std::size_t r = 0; r < rows; ++r) {
    if constexpr (Ops::format::input_offset != 0 || Ops::format::input_bytes != 1) {
      Ops::stage_row(to + r * stride, x + r * XS, K, stride);
    } else {
      for (std::size_t t = 0; t < K; ++t) to[r * stride + t] = x[r * XS + t];
      for (std::size_t t = K; t < stride; ++t) to[r * stride + t] = 0;
    }
  }
}

/// One tile: rows [0, MR) of x (as the kernel reads them, x_stride apart) against NV blocks of channels from block
/// `block`, written to y; the last block has `Valid` channels (Lanes: all). Where `row_start` is given, row i's
/// sums start from row_start[i] more (a run-time product's zero-point term of each row, `runtime_product`).
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, typename P>
inline void packed_tile(const std::int8_t* x, std::size_t x_stride, const P& p, std::size_t block, std::int32_t zero,
                        std::int8_t* y, std::size_t y_stride, const std::int32_t* row_start = nullptr) noexcept {
  using acc = typename Ops::accumulator;
  constexpr std::size_t lanes = P::lanes;
  constexpr std::size_t block_bytes = P::block_bytes;
  constexpr std::size_t group_bytes = P::group_bytes;
  acc sums[MR][NV];
  for (std::size_t j = 0; j < NV; ++j) {
    const acc start = Ops::load_start(p.start + (block + j) * lanes);
    for (std::size_t i = 0; i < MR; ++i) sums[i][j] = row_start ? Ops::add_row_start(start, row_start[i]) : start;
  }
  const std::int8_t* w = p.weight + block * block_bytes;
  for (std::size_t g = 0; g < P::groups; ++g) {
    acc w_vectors[NV];
    for (std::size_t j = 0; j < NV; ++j) w_vectors[j] = Ops::load_weights(w + j * block_bytes + g * group_bytes);
    for (std::size_t i = 0; i < MR; ++i) {
      const acc inputs = Ops::broadcast_group(x + i * x_stride + g * P::input_group_bytes);
      for (std::size_t j = 0; j < NV; ++j) sums[i][j] = Ops::dot_group(sums[i][j], inputs, w_vectors[j]);
    }
  }
  for (std::size_t j = 0; j < NV; ++j) {
    const std::size_t c = (block + j) * lanes;
    const typename Ops::requantizer r = Ops::make_requantizer(p.requant, c, zero);
    for (std::size_t i = 0; i < MR; ++i) {
      Ops::store_requantized(y + i * y_stride + c, sums[i][j], r, j == NV - 1 ? Valid : lanes);
    }
  }
}

/// `packed_tile` for a Format whose instruction multiplies a pair of rows by a pair of channels (`smmla`: groups of
/// 8, blocks of 4 channels as two pairs): rows [0, MR) in pairs, the last one paired with itself where MR is odd (its
/// copy's sums are not stored). A sum vector holds rows r, r + 1 x channels c, c + 1 as (r c, r c+1, r+1 c, r+1 c+1);
/// `Ops::first_row` and `second_row` gather a block's 4 channels of one row from its two pairs for the requantization.
///
/// What such a backend `Ops` provides beyond `packed_tile`'s members (`broadcast_group` and `dot_group` aside):
///
/// | member                                  | meaning                                                          |
/// |-----------------------------------------|------------------------------------------------------------------|
/// | `load_pair_start(p)`                    | the starts of channels p[0], p[1], for both rows                 |
/// | `load_weights(p)`                       | a channel pair's 8 x 2 weights (16 bytes)                        |
/// | `pair_rows(first, second)`              | 8 inputs of two rows (16 bytes)                                  |
/// | `multiply_pair(sum, rows, weights)`     | sum + the 2 x 2 products of the rows' and channels' 8 terms      |
/// | `first_row(a, b)`, `second_row(a, b)`   | one row's sums of the pairs a (channels 0, 1) and b (2, 3)       |
/// | `add_pair_row_starts(sum, r0, r1)`      | sum + (r0, r0, r1, r1): two rows' starts (`row_start`)           |
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, typename P>
inline void packed_pair_tile(const std::int8_t* x, std::size_t x_stride, const P& p, std::size_t block,
                             std::int32_t zero, std::int8_t* y, std::size_t y_stride,
                             const std::int32_t* row_start = nullptr) noexcept {
  static_assert(P::lanes == 4 && P::group == 8, "blocks of two channel pairs, groups of 8 inputs");
  using acc = typename Ops::accumulator;
  constexpr std::size_t pairs = (MR + 1) / 2;
  constexpr std::size_t block_bytes = P::block_bytes;
  acc sums[pairs][NV][2];
  for (std::size_t j = 0; j < NV; ++j) {
    for (std::size_t h = 0; h < 2; ++h) {
      const acc start = Ops::load_pair_start(p.start + (block + j) * 4 + 2 * h);
      for (std::size_t i = 0; i < pairs; ++i) {
        sums[i][j][h] =
            row_start ? Ops::add_pair_row_starts(start, row_start[2 * i], row_start[2 * i + 1 < MR ? 2 * i + 1 : 2 * i])
                      : start;
      }
    }
  }
  const std::int8_t* w = p.weight + block * block_bytes;
  for (std::size_t g = 0; g < P::groups; ++g) {
    acc w_vectors[NV][2];
    for (std::size_t j = 0; j < NV; ++j) {
      for (std::size_t h = 0; h < 2; ++h) {
        w_vectors[j][h] = Ops::load_weights(w + j * block_bytes + g * P::group_bytes + 16 * h);
      }
    }
    for (std::size_t i = 0; i < pairs; ++i) {
      const std::int8_t* first = x + 2 * i * x_stride + g * P::input_group_bytes;
      const acc rows = Ops::pair_rows(first, 2 * i + 1 < MR ? first + x_stride : first);
      for (std::size_t j = 0; j < NV; ++j) {
        for (std::size_t h = 0; h < 2; ++h) sums[i][j][h] = Ops::multiply_pair(sums[i][j][h], rows, w_vectors[j][h]);
      }
    }
  }
  for (std::size_t j = 0; j < NV; ++j) {
    const std::size_t c = (block + j) * 4;
    const std::size_t valid = j == NV - 1 ? Valid : 4;
    const typename Ops::requantizer r = Ops::make_requantizer(p.requant, c, zero);
    for (std::size_t i = 0; i < pairs; ++i) {
      Ops::store_requantized(y + 2 * i * y_stride + c, Ops::first_row(sums[i][j][0], sums[i][j][1]), r, valid);
      if (2 * i + 1 < MR) {
        Ops::store_requantized(y + (2 * i + 1) * y_stride + c, Ops::second_row(sums[i][j][0], sums[i][j][1]), r, valid);
      }
    }
  }
}

/// Whether Ops multiplies pairs of rows by pairs of channels (`packed_pair_tile`) rather than broadcasting a row's
/// group to every channel (`packed_tile`).
template <typename Ops>
inline constexpr bool pairs_rows = Ops::format::group == 8;

/// The tile of a product of M rows by `blocks` blocks of channels: `rows` rows x `panel` blocks, within the
/// backend's accumulators.
// Rationale: a tile's inner step loads `panel` vectors of weights and broadcasts `rows` groups of inputs for
// rows x panel instructions, so the squarest tile that fits does the most work per load: 6 x 4 on AVX-512 where the
// blocks come in fours (a panel of 3 would leave a panel of 1, a load per instruction) and the rows fill a tall
// tile, else the backend's tallest (8 x 3); fewer rows than that are one tile, as wide as their accumulators allow
// (7 rows: 3 blocks; one row: 8 blocks).
template <typename Ops, std::size_t M, std::size_t Blocks>
struct tile_shape {
  static_assert(Ops::tile_rows <= max_tile_rows);
  static constexpr std::size_t square_rows = Ops::accumulators / 4;
  static constexpr bool square = M >= Ops::tile_rows && Blocks % 4 == 0;
  static constexpr std::size_t rows = square ? square_rows : (M < Ops::tile_rows ? M : Ops::tile_rows);
  static constexpr std::size_t wide = Ops::accumulators / rows;
  static constexpr std::size_t panel = square ? 4 : (wide < 1 ? 1 : (wide > Ops::max_panel ? Ops::max_panel : wide));
};

/// Rows [0, MR) of x against the NV blocks from `block`, staged first where `Stage` says.
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, std::size_t K, std::size_t XS,
          std::size_t YS, bool Stage, typename P>
inline void packed_rows(const std::int8_t* x, const P& p, std::size_t block, std::int32_t zero, std::int8_t* y,
                        const std::int32_t* row_start = nullptr) noexcept {
  if constexpr (Stage) {
    constexpr std::size_t stride = staged_stride<typename Ops::format, K>;
    static_assert(MR * stride <= most_staged_bytes<MR, K>, "a tile stages no more than int8_product_stack_bytes says");
    alignas(64) std::int8_t rows[MR * stride];
    stage_rows<Ops, K, XS>(rows, x, MR);
    packed_rows<Ops, MR, NV, Valid, K, stride, YS, false>(rows, p, block, zero, y, row_start);
  } else if constexpr (pairs_rows<Ops>) {
    packed_pair_tile<Ops, MR, NV, Valid>(x, XS, p, block, zero, y, YS, row_start);
  } else {
    packed_tile<Ops, MR, NV, Valid>(x, XS, p, block, zero, y, YS, row_start);
  }
}

/// Every row of x against the NV blocks from `block`: tiles of `Rows` rows, then the rest.
template <typename Ops, std::size_t Rows, std::size_t M, std::size_t NV, std::size_t Valid, std::size_t K,
          std::size_t XS, std::size_t YS, bool Stage, typename P>
inline void packed_panel(const std::int8_t* x, const P& p, std::size_t block, std::int32_t zero, std::int8_t* y,
                         const std::int32_t* row_start = nullptr) noexcept {
  for (std::size_t i = 0; i + Rows <= M; i += Rows) {
    packed_rows<Ops, Rows, NV, Valid, K, XS, YS, Stage>(x + i * XS, p, block, zero, y + i * YS,
                                                        row_start ? row_start + i : nullptr);
  }
  if constexpr (M % Rows != 0) {
    constexpr std::size_t i = M - M % Rows;
    packed_rows<Ops, M % Rows, NV, Valid, K, XS, YS, Stage>(x + i * XS, p, block, zero, y + i * YS,
                                                            row_start ? row_start + i : nullptr);
  }
}

/// Every panel of channels, each against every row of x (XS elements apart; staged tile by tile where `Stage`).
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, bool Stage,
          typename P>
inline void packed_panels(const std::int8_t* x, const P& p, std::int32_t zero, std::int8_t* y) noexcept {
  constexpr std::size_t blocks = P::blocks;
  constexpr std::size_t rows = tile_shape<Ops, M, blocks>::rows;
  constexpr std::size_t panel = tile_shape<Ops, M, blocks>::panel;
  constexpr std::size_t last_valid = N % P::lanes == 0 ? P::lanes : N % P::lanes;
  constexpr std::size_t full = blocks / panel * panel;
  // Whole panels; the last of them holds the partial block when the blocks divide evenly.
  for (std::size_t b = 0; b < full; b += panel) {
    if (b + panel == blocks) {
      packed_panel<Ops, rows, M, panel, last_valid, K, XS, YS, Stage>(x, p, b, zero, y);
    } else {
      packed_panel<Ops, rows, M, panel, P::lanes, K, XS, YS, Stage>(x, p, b, zero, y);
    }
  }
  if constexpr (blocks % panel != 0) {
    packed_panel<Ops, rows, M, blocks % panel, last_valid, K, XS, YS, Stage>(x, p, full, zero, y);
  }
}

/// y[r][c] = requantize(start[c] + sum_t x[r][t] w[c][t]) for r < M, c < N (`kernels::int8_fully_connected`'s
/// contract) on the packed weights p; rows of x and y XS and YS elements apart.
// Rationale: the panel of channels is the outer loop, so that its weights (NV blocks, up to 8 KiB per 128 inputs)
// stay in L1 for every tile of rows; a panel is as wide as the registers allow (Ops::accumulators over the rows
// of a tile), so that one row (a decoding step) has enough independent sums to hide the instruction's latency.
// Rows that need staging are staged on the stack once where they are one tile (a few rows, many panels: 7 x 512
// x 512 staged for each of its 11 panels took 5% longer), else tile by tile, so that the stack holds a tile's
// rows whatever M is; staging costs a vector instruction per 64 inputs against a tile's NV per 4.
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, typename P>
inline void packed_product(const std::int8_t* x, const P& p, std::int32_t zero, std::int8_t* y) noexcept {
  if constexpr (!staged<typename Ops::format, K>) {
    packed_panels<Ops, M, K, N, XS, YS, false>(x, p, zero, y);
  } else if constexpr (M <= tile_shape<Ops, M, P::blocks>::rows) {
    constexpr std::size_t stride = staged_stride<typename Ops::format, K>;
    static_assert(M * stride <= most_staged_bytes<M, K>, "the rows stage no more than int8_product_stack_bytes says");
    alignas(64) std::int8_t rows[M * stride];
    stage_rows<Ops, K, XS>(rows, x, M);
    packed_panels<Ops, M, K, N, stride, YS, false>(rows, p, zero, y);
  } else {
    packed_panels<Ops, M, K, N, XS, YS, true>(x, p, zero, y);
  }
}

/// The rows a product needs for `runtime_product` to pack its run-time operand: packing costs a move per group of
/// each channel, which a tile of this many rows amortizes (fewer rows: the backend's dot products, with no packing).
inline constexpr std::size_t runtime_packing_rows = 8;

/// `Blocks` blocks of the channels of an int8 operand known only at run time, in Format's layout (`packed_weights`'s
/// for one panel): what `runtime_product` packs on the stack, a panel at a time.
///
/// | member    | holds                                                                              |
/// |-----------|------------------------------------------------------------------------------------|
/// | `weight`  | Blocks blocks of Lanes channels x K inputs (block_bytes apart), padding 0          |
/// | `start`   | each channel's start less input_offset times the sum of its inputs, at its lane    |
/// | `requant` | the Format's requantization, set once for every lane (one multiplier)              |
template <typename Format, std::size_t K, std::size_t Blocks>
struct runtime_panel {
  using layout = packed_weights<Format::lanes, K, Format>;  // one block's
  static constexpr std::size_t lanes = Format::lanes;
  static constexpr std::size_t group = Format::group;
  static constexpr std::size_t blocks = Blocks;
  static constexpr std::size_t groups = layout::groups;
  static constexpr std::size_t group_bytes = layout::group_bytes;
  static constexpr std::size_t input_group_bytes = layout::input_group_bytes;
  static constexpr std::size_t block_bytes = layout::block_bytes;
  static constexpr std::size_t columns = Blocks * lanes;
  static constexpr int input_offset = Format::input_offset;

  std::int8_t weight[Blocks * block_bytes];
  std::int32_t start[columns];
  typename Format::template requantization<columns> requant;

  /// The channels [0, count) from w (rows of K, WS elements apart) with their starts column_start[c], the rest
  /// (count < columns: the last panel's padding) 0, as `packed_weights` lays out a layer: whole blocks by the
  /// backend's `Ops::pack_block` where it has one (a transposition of the block's rows), the rest channel by channel.
  // Rationale: the row pointer advances, not w + c WS: GCC 12 -O3 reports the latter as overflowing at iterations
  // no call reaches (-Waggressive-loop-optimizations, an error with -Werror).
  template <typename Ops, std::size_t WS>
  void pack(const std::int8_t* w, const std::int32_t* column_start, std::size_t count) noexcept {
    std::size_t c = 0;
    if constexpr (Ops::has_pack_block) {
      for (; c + lanes <= count && c < columns; c += lanes) {
        std::int32_t sums[lanes];  // in lane order
        Ops::template pack_block<K, WS>(weight + c / lanes * block_bytes, w, sums);
        for (std::size_t q = 0; q < lanes; ++q) {
          start[c + Format::lane_of(q)] = layout::start_of(column_start[c + q], sums[Format::lane_of(q)]);
        }
        if (c + lanes < count) w += lanes * WS;  // no further than w's last row
      }
    }
    for (; c < columns; ++c) {
      const bool kept = c < count;
      const std::int32_t sum = layout::place(weight, c, kept ? w : nullptr);
      start[layout::lane_of_channel(c)] = kept ? layout::start_of(column_start[c], sum) : 0;
      if (c + 1 < count) w += WS;  // no further than w's last row
    }
  }
};

/// The stack bytes `runtime_product`'s panel takes for K inputs and N channels, on any backend: at most 64
/// channels (4 blocks of AVX-512's 16, or fewer channels on the narrower backends), each with its K inputs rounded
/// up to a group of 8, its start and its requantization (40 bytes at most), the blocks' padding, and the panel's
/// alignment.
template <std::size_t K, std::size_t N>
inline constexpr std::size_t most_runtime_panel_bytes = [] {
  const std::size_t rounded = (N + 15) / 16 * 16;
  const std::size_t channels = rounded < 64 ? rounded : 64;
  return channels * ((K + 7) / 8 * 8 + 4 + 40) + 4 * 64 + 8 + 64;
}();

/// y[r][c] = requantize(start(r, c) + sum_t x[r][t] w[c][t]) for r < M, c < N, with one multiplier
/// (`kernels::int8_product_requantized`'s contract, `int8_epilogue<false, ...>`) where w is known only at run time
/// (int8 attention's keys and values): `packed_product`'s tiles, on w packed a panel of channels at a time into a
/// `runtime_panel` on the stack. Rows of x, w and y XS, WS and YS elements apart. Returns false, having written
/// nothing, where the Format's requantization of that multiplier is not exact (`exact()`), for the caller's kernel.
// Rationale: packing costs a move per group of 4 inputs of each channel, against a dot-product instruction per
// group, channel block and row in the tiles; the backend's dot products (`int8_simd::dot_rows`) instead end each
// output in a reduction across lanes, 7 or 8 instructions per output at K = 64 where a tile spends one.
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
          typename Epilogue>
inline bool runtime_product(const std::int8_t* x, const std::int8_t* w, const Epilogue& e, std::int8_t* y) noexcept {
  static_assert(!Epilogue::per_channel, "one multiplier for every channel");
  using format = typename Ops::format;
  constexpr std::size_t lanes = format::lanes;
  constexpr std::size_t blocks = (N + lanes - 1) / lanes;
  using shape = tile_shape<Ops, M, blocks>;
  constexpr std::size_t rows = shape::rows;
  constexpr std::size_t panel = shape::panel < blocks ? shape::panel : blocks;
  using panel_type = runtime_panel<format, K, panel>;
  static_assert(sizeof(panel_type) + 64 <= most_runtime_panel_bytes<K, N>,
                "the panel takes no more than int8_product_stack_bytes says");
  alignas(64) panel_type p;
  p.requant.set_all(e.multiplier(0), e.zero);
  if (!p.requant.exact()) return false;
  const std::int32_t* const row_start = Epilogue::row_starts ? e.row_start : nullptr;
  constexpr std::size_t last_valid = N % lanes == 0 ? lanes : N % lanes;
  constexpr std::size_t full = blocks / panel * panel;
  constexpr bool stage = staged<format, K>;
  constexpr std::size_t panel_channels = panel * lanes;
  const std::int8_t* from = w;
  std::int8_t* to = y;
  const std::int32_t* column_start = e.column_start;
  for (std::size_t b = 0; b < full; b += panel) {
    p.template pack<Ops, WS>(from, column_start, N - b * lanes);
    if (b + panel == blocks) {
      packed_panel<Ops, rows, M, panel, last_valid, K, XS, YS, stage>(x, p, 0, e.zero, to, row_start);
    } else {
      packed_panel<Ops, rows, M, panel, lanes, K, XS, YS, stage>(x, p, 0, e.zero, to, row_start);
    }
    if (b + panel < blocks) {  // no further than w's last row
      from += panel_channels * WS;
      to += panel_channels;
      column_start += panel_channels;
    }
  }
  if constexpr (blocks % panel != 0) {
    p.template pack<Ops, WS>(from, column_start, N - full * lanes);
    packed_panel<Ops, rows, M, blocks % panel, last_valid, K, XS, YS, stage>(x, p, 0, e.zero, to, row_start);
  }
  return true;
}

}  // namespace ctattn::detail::int8_packed

#endif  // CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP
