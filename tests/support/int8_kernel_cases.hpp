// The int8 kernels (ctattn/kernels/int8.hpp) against plain loops written here:
//   - int8_dot_rows: pseudo-random int8 operands, every length K from 1 to 70 (every tail of every backend's step:
//     4, 8, 16, 32), one row against 9 rows (two passes of four and a rest), a column window that starts at an odd
//     offset, and zero points at both ends of the int8 range;
//   - int8_fully_connected, and int8_product_transposed_requantized (multiply's kernel) with zero points on both
//     operands: shapes whose rows, inputs and channels are not multiples of any backend's tile (blocks of up to 6
//     rows and 2 x 2 tiles on the Cortex-M DSP, 2 channels on Armv6-M, 4 channels and 16 inputs on Helium), input
//     zero points at both ends, per-channel
//     multipliers with left shifts, no shift and right shifts up to 31, and biases that saturate outputs both ways,
//     each output against TFLite's formula requantize(sum (x - z_in) w + bias) with the bias folded as a qlinear
//     folds it;
//   - int4_fully_connected (kernels/int4.hpp): the same cases with their weights cut to int4 values ([-8, 7]) and
//     packed as TFLite packs them, odd and even K, channel blocks with a rest;
//   - int8_layer_norm_rows at run time against its steps as constant evaluation runs them, and the square root and
//     division it uses.
// Counted as the number of results that differ; zero at compile time (tests/static/quantized_test.cpp, the scalar
// form) and at run time with each backend (tests/backend/int8_backend_test.cpp, tests/runtime/quantized_test.cpp,
// and the firmware image int8_kernel_cases on every board).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <ctattn/kernels/int4.hpp>
#include <ctattn/kernels/int8.hpp>
#include <ctattn/quantized/softmax.hpp>

#include "support/case_list.hpp"

namespace ctattn_test::int8_kernel_cases {

inline constexpr std::size_t width = 73;

// The cases' pseudo-random numbers: a linear congruential generator (state * 1664525 + 1013904223 modulo 2^32)
// from a seed, so that every case is the same on every runner.
struct case_random {
  std::uint32_t state;
  /// The next state.
  constexpr std::uint32_t word() noexcept { return state = state * 1664525u + 1013904223u; }
  /// The next state's top byte less 128: [-128, 127].
  constexpr std::int32_t byte() noexcept { return static_cast<std::int32_t>(word() >> 24) - 128; }
};

struct operands {
  std::int8_t a[3][width]{};
  std::int8_t b[9][width]{};
};

// Operands from an LCG; the first entries of a and b are -128 and 127, the extremes a difference can reach.
constexpr operands make_operands(std::uint32_t seed) noexcept {
  operands o{};
  case_random random{seed};
  const auto next = [&random]() noexcept { return static_cast<std::int8_t>(random.byte()); };
  for (auto& row : o.a) {
    for (auto& v : row) v = next();
  }
  for (auto& row : o.b) {
    for (auto& v : row) v = next();
  }
  o.a[1][3] = -128;
  o.b[4][3] = 127;
  return o;
}

// The sums of int8_dot_rows for one K and one pair of zero points against the loop, over a window of columns
// [3, 3 + K) (K <= 70).
constexpr std::size_t dot_rows_mismatches(const operands& o, std::size_t k, std::int32_t a_zero,
                                          std::int32_t b_zero) noexcept {
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  for (std::size_t i = 0; i < 3; ++i) {
    std::int32_t sums[9]{};
    ctattn::detail::kernels::int8_dot_rows<70>(o.a, i, 3, a_zero, o.b, 0, 3, b_zero, k, 9, sums);
    for (std::size_t j = 0; j < 9; ++j) {
      std::int32_t want = 0;
      for (std::size_t t = 3; t < 3 + k; ++t) want += (o.a[i][t] - a_zero) * (o.b[j][t] - b_zero);
      bad += sums[j] == want ? 0u : 1u;
    }
  }
  return bad;
}

inline constexpr std::int32_t zero_points[][2] = {{0, 0}, {-128, 127}, {127, -128}, {-3, 17}};

// Every K from `first` to `last` with every pair of zero points.
template <typename Read>
constexpr std::size_t all_mismatches(Read read, std::size_t first = 1, std::size_t last = 70) noexcept {
  const operands o = read(make_operands(7));
  std::size_t bad = 0;
  for (std::size_t k = first; k <= last; ++k) {
    for (const auto& z : zero_points) bad += dot_rows_mismatches(o, k, z[0], z[1]);
  }
  return bad;
}

// Packed int4 weights as one value, so that `read` hides them from the optimizer.
template <std::size_t Bytes>
struct packed_array {
  std::uint8_t bytes[Bytes]{};
  constexpr explicit packed_array(const std::uint8_t (&from)[Bytes]) noexcept {
    for (std::size_t i = 0; i < Bytes; ++i) bytes[i] = from[i];
  }
};

// One fully-connected case: M x K inputs, N channels, input zero point z_in, output zero point z_out.
template <std::size_t M, std::size_t K, std::size_t N>
struct fully_connected_case {
  std::int8_t x[M][K]{};
  std::int8_t w[N][K]{};
  std::int32_t bias[N]{};
  std::int32_t folded_bias[N]{};
  ctattn::math::quantized_multiplier multipliers[N]{};
};

// Multipliers that reach every branch of the requantization: left shifts, none, right shifts up to 31, mantissas
// at both ends of [2^30, 2^31), one below 2^30 and 0.
inline constexpr ctattn::math::quantized_multiplier fc_multipliers[] = {
    {1 << 30, -1},     {2147483647, -9},  {1518500250, 0}, {1073741825, 2},
    {1800000000, -31}, {1234567890, -14}, {2000000000, 1}, {1100000000, -5},
    {1500000000, -20}, {536870913, -3},   {0, -2}};

// The multipliers with a right shift of at most 23 (fc_multipliers' {1800000000, -31} as {1800000000, -23}): the
// AVX-512 packed kernel folds the output zero point into its 64-bit sums where every channel's shift allows it
// (kernels/detail/int8_packed.hpp, paired_format); a layer with a larger shift takes the plain kernel.
inline constexpr ctattn::math::quantized_multiplier foldable_multipliers[] = {
    {1 << 30, -1},     {2147483647, -9},  {1518500250, 0}, {1073741825, 2},
    {1800000000, -23}, {1234567890, -14}, {2000000000, 1}, {1100000000, -5},
    {1500000000, -20}, {536870913, -3},   {0, -2}};

// Normalized multipliers with right shifts of 1 to 22, both ends included: every one a `short_multiplier`, so that
// a layer of them keeps that fact (kernels/int8.hpp's int8_packed_weights on the Cortex-M DSP and Helium) and the
// kernels take their short requantization for the whole layer.
inline constexpr ctattn::math::quantized_multiplier short_multipliers[] = {
    {1 << 30, -1},    {2147483647, -22}, {1518500250, -2},  {1073741825, -22}, {1800000000, -13}, {1234567890, -14},
    {2000000000, -1}, {1100000000, -5},  {1500000000, -20}, {2147483647, -1},  {1 << 30, -9}};

// The multipliers of a case's even channels (the odd ones take {2^30, -1}, a short one).
enum class multiplier_set { general, foldable, all_short };

template <std::size_t M, std::size_t K, std::size_t N>
constexpr fully_connected_case<M, K, N> make_fully_connected_case(
    std::uint32_t seed, std::int32_t z_in, multiplier_set set = multiplier_set::general) noexcept {
  fully_connected_case<M, K, N> f{};
  case_random random{seed};
  const auto next = [&random]() noexcept { return random.byte(); };
  for (auto& row : f.x) {
    for (auto& entry : row) entry = static_cast<std::int8_t>(next());
  }
  for (std::size_t c = 0; c < N; ++c) {
    // Odd channels: weights in {-1, 0, 1} and the multiplier 1/4 ({2^30, -1}), so that most outputs stay in range
    // and half of them are ties of the final rounding shift, which must go away from zero.
    for (auto& entry : f.w[c])
      entry = static_cast<std::int8_t>(c % 2 == 1 ? next() % 2 : (next() == -128 ? -127 : next()));
  }
  f.x[0][0] = -128;
  f.w[0][0] = 127;
  if constexpr (N > 1) f.w[1][0] = 1;
  for (std::size_t c = 0; c < N; ++c) {
    // Mostly small biases; every sixth one large enough to saturate the output, with alternating signs, the
    // negative ones near the int32 limit.
    // Rationale: channels 4, 10, 16, ..., not a fixed place in the DSP kernel's passes of 4 channels: saturated
    // outputs hide a wrong sum, and the third channel of every pass (c % 4 == 2, as before) went unchecked.
    f.bias[c] = c % 2 == 1 ? next() : (c % 6 == 4 ? (c % 12 == 4 ? 900000000 : -2000000000) : next() * 301);
    std::int32_t sum = 0;
    for (std::size_t t = 0; t < K; ++t) sum += f.w[c][t];
    f.folded_bias[c] =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(f.bias[c]) - static_cast<std::uint32_t>(z_in * sum));
    constexpr std::size_t choices = sizeof fc_multipliers / sizeof fc_multipliers[0];
    static_assert(choices == sizeof foldable_multipliers / sizeof foldable_multipliers[0]);
    static_assert(choices == sizeof short_multipliers / sizeof short_multipliers[0]);
    f.multipliers[c] = c % 2 == 1                         ? ctattn::math::quantized_multiplier{1 << 30, -1}
                       : set == multiplier_set::foldable  ? foldable_multipliers[c / 2 % choices]
                       : set == multiplier_set::all_short ? short_multipliers[c / 2 % choices]
                                                          : fc_multipliers[c / 2 % choices];
  }
  return f;
}

// Outputs of int8_fully_connected that differ from TFLite's formula (the general requantize, checked against the
// Python reference by the quantized tests), with fc_multipliers and with foldable_multipliers, or (AllShort) with
// short_multipliers only; plus 1 for a layer's kept form that misjudges whether every multiplier is short.
template <std::size_t M, std::size_t K, std::size_t N, bool AllShort = false, typename Read>
constexpr std::size_t fully_connected_mismatches(Read read, std::uint32_t seed) noexcept {
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  // The odd input zero points with foldable_multipliers and the extreme output zero points.
  for (const std::int32_t z_in : {-128, 127, 0, -3}) {
    const std::int32_t z_out = z_in == 0 ? 5 : (z_in == 127 ? -128 : (z_in == -3 ? 127 : -z_in / 2));
    const multiplier_set set =
        AllShort ? multiplier_set::all_short : (z_in % 2 != 0 ? multiplier_set::foldable : multiplier_set::general);
    const fully_connected_case<M, K, N> f = read(make_fully_connected_case<M, K, N>(seed, z_in, set));
    std::int8_t y[M][N]{};
    ctattn::detail::kernels::int8_fully_connected(f.x, f.w, f.folded_bias, f.multipliers, z_out, y);
    // The same layer through its packed form (kernels/detail/int8_packed.hpp, where the build has a packed kernel;
    // elsewhere the same call as above).
    const ctattn::detail::kernels::int8_packed_weights<N, K> packed{f.w, f.folded_bias, f.multipliers, z_out};
    bool all_short = true;  // normalized, a right shift of 1 to 22: the kernels' short requantization
    for (const auto& q : f.multipliers)
      all_short = all_short && q.multiplier >= (1 << 30) && q.shift <= -1 && q.shift >= -22;
    if constexpr (AllShort) bad += all_short ? 0u : 1u;  // the case is what it says
    if constexpr (std::is_same_v<std::remove_cv_t<decltype(packed)>, ctattn::detail::int8_packed::multiplier_form>) {
      bad += packed.short_multipliers == (all_short ? 1u : 0u) ? 0u : 1u;
    }
    std::int8_t y_packed[M][N]{};
    ctattn::detail::kernels::int8_fully_connected(f.x, f.w, f.folded_bias, f.multipliers, z_out, y_packed, packed);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t c = 0; c < N; ++c) {
        std::int32_t sum = f.bias[c];
        for (std::size_t t = 0; t < K; ++t) sum += (std::int32_t{f.x[r][t]} - z_in) * f.w[c][t];
        const std::int8_t expected = ctattn::detail::kernels::requantize(sum, f.multipliers[c], z_out);
        bad += y[r][c] == expected ? 0u : 1u;
        bad += y_packed[r][c] == expected ? 0u : 1u;
      }
    }
  }
  return bad;
}

// Outputs of int4_fully_connected (kernels/int4.hpp) that differ from TFLite's formula on the unpacked values: the
// fully-connected case's weights cut to their low nibbles ([-8, 7], -8 included), packed two a byte as TFLite packs
// them (an odd K splits bytes between rows), for each pair of zero points of fully_connected_mismatches.
template <std::size_t M, std::size_t K, std::size_t N, typename Read>
constexpr std::size_t int4_fully_connected_mismatches(Read read, std::uint32_t seed) noexcept {
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  for (const std::int32_t z_in : {-128, 127, 0, -3}) {
    const std::int32_t z_out = z_in == 0 ? 5 : (z_in == 127 ? -128 : (z_in == -3 ? 127 : -z_in / 2));
    fully_connected_case<M, K, N> f = make_fully_connected_case<M, K, N>(seed, z_in);
    std::uint8_t packed[ctattn::detail::kernels::int4_packed_bytes<N, K>]{};
    for (std::size_t c = 0; c < N; ++c) {
      std::int32_t sum = 0;
      for (std::size_t t = 0; t < K; ++t) {
        const auto nibble = static_cast<unsigned>(f.w[c][t]) & 0xFu;
        f.w[c][t] = static_cast<std::int8_t>(static_cast<int>(nibble) - (nibble >= 8 ? 16 : 0));
        sum += f.w[c][t];
        const std::size_t i = c * K + t;
        packed[i / 2] = static_cast<std::uint8_t>(packed[i / 2] | (i % 2 == 0 ? nibble : nibble << 4));
      }
      f.folded_bias[c] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(f.bias[c]) - static_cast<std::uint32_t>(z_in * sum));
    }
    f = read(f);
    std::int8_t y[M][N]{};
    ctattn::detail::kernels::int4_fully_connected(f.x, read(packed_array{packed}).bytes, f.folded_bias, f.multipliers,
                                                  z_out, y);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t c = 0; c < N; ++c) {
        std::int32_t sum = f.bias[c];
        for (std::size_t t = 0; t < K; ++t) sum += (std::int32_t{f.x[r][t]} - z_in) * f.w[c][t];
        bad += y[r][c] == ctattn::detail::kernels::requantize(sum, f.multipliers[c], z_out) ? 0u : 1u;
      }
    }
  }
  return bad;
}

// Outputs of int8_fully_connected and int4_fully_connected with one multiplier for every channel (a layer quantized
// per tensor) that differ from the formula: each of fc_multipliers in turn, over the fully-connected case's operands.
template <std::size_t M, std::size_t K, std::size_t N, typename Read>
constexpr std::size_t per_tensor_mismatches(Read read, std::uint32_t seed) noexcept {
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  constexpr std::int32_t z_in = -3;
  fully_connected_case<M, K, N> f = make_fully_connected_case<M, K, N>(seed, z_in);
  std::uint8_t packed[ctattn::detail::kernels::int4_packed_bytes<N, K>]{};
  std::int32_t int4_start[N]{};
  std::int8_t w4[N][K]{};
  for (std::size_t c = 0; c < N; ++c) {
    std::int32_t sum = 0;
    for (std::size_t t = 0; t < K; ++t) {
      const auto nibble = static_cast<unsigned>(f.w[c][t]) & 0xFu;
      w4[c][t] = static_cast<std::int8_t>(static_cast<int>(nibble) - (nibble >= 8 ? 16 : 0));
      sum += w4[c][t];
      const std::size_t i = c * K + t;
      packed[i / 2] = static_cast<std::uint8_t>(packed[i / 2] | (i % 2 == 0 ? nibble : nibble << 4));
    }
    int4_start[c] =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(f.bias[c]) - static_cast<std::uint32_t>(z_in * sum));
  }
  f = read(f);
  for (const auto& m : fc_multipliers) {
    const ctattn::math::quantized_multiplier one[1]{read(m)};
    std::int8_t y[M][N]{};
    std::int8_t y4[M][N]{};
    ctattn::detail::kernels::int8_fully_connected(f.x, f.w, f.folded_bias, one, 9, y);
    ctattn::detail::kernels::int4_fully_connected(f.x, read(packed_array{packed}).bytes, int4_start, one, 9, y4);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t c = 0; c < N; ++c) {
        std::int32_t sum = f.bias[c];
        std::int32_t sum4 = f.bias[c];
        for (std::size_t t = 0; t < K; ++t) {
          sum += (std::int32_t{f.x[r][t]} - z_in) * f.w[c][t];
          sum4 += (std::int32_t{f.x[r][t]} - z_in) * w4[c][t];
        }
        bad += y[r][c] == ctattn::detail::kernels::requantize(sum, m, 9) ? 0u : 1u;
        bad += y4[r][c] == ctattn::detail::kernels::requantize(sum4, m, 9) ? 0u : 1u;
      }
    }
  }
  return bad;
}

// Every int4 fully-connected shape: odd and even K (rows that split a byte, K = 1 included), channels in one
// block, one whole block (8 on a Cortex-M) and blocks with a rest (9, 17 and 70: 32 per block elsewhere), rows in
// the DSP kernel's blocks of 6 and a rest, and blocks whose bytes end past the unpacking's steps of 16 (5 x 34: 85
// bytes, 5 over).
template <typename Read>
constexpr std::size_t all_int4_fully_connected_mismatches(Read read) noexcept {
  return int4_fully_connected_mismatches<1, 1, 1>(read, 41) + int4_fully_connected_mismatches<3, 3, 5>(read, 42) +
         int4_fully_connected_mismatches<2, 16, 8>(read, 43) + int4_fully_connected_mismatches<7, 13, 9>(read, 44) +
         int4_fully_connected_mismatches<3, 33, 17>(read, 45) + int4_fully_connected_mismatches<3, 34, 5>(read, 50) +
         per_tensor_mismatches<3, 16, 9>(read, 48) + per_tensor_mismatches<7, 13, 5>(read, 49);
}

// int4 shapes too large for a static_assert: channel blocks of 32 with a rest, and a KWT-sized row.
template <typename Read>
std::size_t large_int4_fully_connected_mismatches(Read read) noexcept {
  return int4_fully_connected_mismatches<9, 37, 70>(read, 46) + int4_fully_connected_mismatches<2, 192, 65>(read, 47);
}

// The weights of a one-row case one byte past a word boundary: the DSP kernel's pass that loads two words of w at
// once (`ldrd`) needs them word-aligned, and takes its one-word pass otherwise.
template <std::size_t K, std::size_t N>
struct alignas(4) offset_weights {
  std::int8_t pad{};
  std::int8_t w[N][K]{};
};

// Outputs of int8_fully_connected on one row whose weights are not word-aligned that differ from the formula.
template <std::size_t K, std::size_t N, typename Read>
constexpr std::size_t unaligned_one_row_mismatches(Read read, std::uint32_t seed) noexcept {
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  constexpr std::int32_t z_in = -3;
  constexpr std::int32_t z_out = 7;
  const fully_connected_case<1, K, N> f = read(make_fully_connected_case<1, K, N>(seed, z_in));
  offset_weights<K, N> o{};
  for (std::size_t c = 0; c < N; ++c) {
    for (std::size_t t = 0; t < K; ++t) o.w[c][t] = f.w[c][t];
  }
  o = read(o);
  std::int8_t y[1][N]{};
  ctattn::detail::kernels::int8_fully_connected(f.x, o.w, f.folded_bias, f.multipliers, z_out, y);
  for (std::size_t c = 0; c < N; ++c) {
    std::int32_t sum = f.bias[c];
    for (std::size_t t = 0; t < K; ++t) sum += (std::int32_t{f.x[0][t]} - z_in) * f.w[c][t];
    bad += y[0][c] == ctattn::detail::kernels::requantize(sum, f.multipliers[c], z_out) ? 0u : 1u;
  }
  return bad;
}

// One row, as a decoding step's products have: inputs a whole number of steps of 4, run by the DSP kernel in
// passes of 8 terms with one step of 4 before them where the count is odd (K = 8: one pass before the loop, none in
// it; 12: a step and a pass; 16: one round of the loop; 20: a step and a round; 28: a step, a pass and a round; 64:
// 4 rounds), channels in passes of 4 with 0 to 3 left, each pass mixing multipliers the short requantization takes
// with ones it leaves to the general one (fc_multipliers and {2^30, -1} in turn), one multiplier for every channel,
// each of fc_multipliers, weights that are not word-aligned, and layers whose multipliers are all short (the
// passes that test none).
template <typename Read>
constexpr std::size_t one_row_product_mismatches(Read read) noexcept {
  return fully_connected_mismatches<1, 8, 5>(read, 51) + fully_connected_mismatches<1, 12, 4>(read, 57) +
         fully_connected_mismatches<1, 16, 9>(read, 52) + fully_connected_mismatches<1, 20, 6>(read, 53) +
         fully_connected_mismatches<1, 28, 7>(read, 58) + fully_connected_mismatches<1, 64, 12>(read, 54) +
         per_tensor_mismatches<1, 16, 7>(read, 55) + per_tensor_mismatches<1, 28, 8>(read, 59) +
         per_tensor_mismatches<1, 64, 8>(read, 56) + unaligned_one_row_mismatches<28, 9>(read, 60) +
         unaligned_one_row_mismatches<64, 4>(read, 61) + fully_connected_mismatches<1, 12, 6, true>(read, 62) +
         fully_connected_mismatches<1, 64, 12, true>(read, 63);
}

// Shapes too large to evaluate in a static_assert, run-time only: the packed kernel's tiles of rows (8 on AVX-512)
// with rows left over, panels of channel blocks (up to 8 blocks of 16) with a partial last block and a partial
// panel, one row (a decoding step) and inputs not a multiple of 4.
template <typename Read>
std::size_t large_fully_connected_mismatches(Read read) noexcept {
  return fully_connected_mismatches<17, 67, 150>(read, 31) + fully_connected_mismatches<1, 13, 200>(read, 32) +
         fully_connected_mismatches<1, 130, 257>(read, 33) + fully_connected_mismatches<8, 64, 128>(read, 34) +
         fully_connected_mismatches<9, 1, 33>(read, 35) + fully_connected_mismatches<24, 20, 48>(read, 36);
}

// Outputs of int8_product_transposed_requantized (multiply's kernel: both operands with zero points, one
// multiplier) that differ from requantize(sum (a - za)(b - zb)), for every pair of zero points, with the operands
// of the fully-connected case (x as a, w as b) and each of its multipliers in turn.
template <std::size_t M, std::size_t K, std::size_t N, typename Read>
constexpr std::size_t transposed_product_mismatches(Read read, std::uint32_t seed) noexcept {
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  const fully_connected_case<M, K, N> f = read(make_fully_connected_case<M, K, N>(seed, 0));
  std::size_t which = seed;
  for (const auto& z : zero_points) {
    const ctattn::math::quantized_multiplier m =
        fc_multipliers[which++ % (sizeof fc_multipliers / sizeof fc_multipliers[0])];
    const std::int32_t z_out = z[0] / 3;
    std::int8_t y[M][N]{};
    ctattn::detail::kernels::int8_product_transposed_requantized(f.x, f.w, z[0], z[1], m, z_out, y);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t c = 0; c < N; ++c) {
        std::int32_t sum = 0;
        for (std::size_t t = 0; t < K; ++t) sum += (std::int32_t{f.x[r][t]} - z[0]) * (std::int32_t{f.w[c][t]} - z[1]);
        bad += y[r][c] == ctattn::detail::kernels::requantize(sum, m, z_out) ? 0u : 1u;
      }
    }
  }
  return bad;
}

// Products of run-time operands large enough for the layers' tiles, run-time only: from 8 rows on, where the build
// has a packed kernel, b is packed a panel at a time on the stack (int8_packed::runtime_product): panels with a
// partial last block and a partial last panel, fewer channels than a block, inputs not a multiple of any group
// (2, 4, 8) or a single one, rows left after the last whole tile, and a multiplier whose right shift (31) the
// AVX-512 form cannot fold (seed 37: that case falls back to the dot products).
template <typename Read>
std::size_t large_transposed_product_mismatches(Read read) noexcept {
  return transposed_product_mismatches<17, 67, 150>(read, 37) + transposed_product_mismatches<8, 64, 128>(read, 38) +
         transposed_product_mismatches<9, 1, 33>(read, 39) + transposed_product_mismatches<24, 20, 48>(read, 40) +
         transposed_product_mismatches<64, 64, 64>(read, 41) + transposed_product_mismatches<12, 5, 7>(read, 42) +
         transposed_product_mismatches<33, 130, 100>(read, 43);
}

// The int8 softmax of rows of every length from 1 to 40 (every tail of 4 and of 16 lanes), at two input scales,
// on pseudo-random scores with a row's extremes included, against the same function constant-evaluated (the
// scalar form, itself checked against the Python reference by the quantized cases): the weights that differ.
inline constexpr std::size_t softmax_width = 40;
struct softmax_rows {
  std::int8_t w[softmax_width][softmax_width]{};
};
constexpr operands softmax_scores() noexcept { return make_operands(11); }

// Rows (found by a search over pseudo-random rows) where, with the input scale 0.05, the quotient guess (n r) >> 40
// of some weight is one short and the remainder's comparison must add it: the first entry of each is its length.
// In the last, entry 9's numerator is an exact multiple of the divisor (its weight a tie of the rounding): the
// remainder equals the divisor.
inline constexpr std::size_t short_guess_count = 6;
inline constexpr std::int8_t softmax_short_guess_rows[short_guess_count][41] = {
    {17, 56, -61, 24, 75, -47, 109, 10, -23, -107, -116, 59, -108, -65, 91, 27, 109, -45},
    {32, 112, 112, -80, -64, 80, 0,   96,  0,  112,  96,  16, 80,  0,   -80, -16, 64,
     80, 32,  48,  0,   -80, 0,  -64, -80, 16, -112, -64, 32, -96, -16, 96,  -112},
    {22, 7, 6, -104, 95, -1, -7, -14, -61, 34, -76, -15, 72, 19, -47, 103, 25, -19, 114, -78, -76, -53, 66},
    {38, 96,  64, -80, -16, -16, -64, 48, 0, -96, -32, -80, 32,  -64, 32, 64, 64,   64,  0, -48,
     48, -48, 64, -80, 96,  -64, 32,  80, 0, -48, 112, 80,  -48, 112, 48, 96, -112, 112, 48},
    {30,   -77, 63,  -34, -117, -119, 106,  8,  -15, -106, -18,  -63, 14, 19, -95, 100,
     -114, 40,  -89, 57,  -36,  107,  -102, 14, 92,  -108, -123, 94,  29, 30, -77},
    {17, 3, -19, -19, -1, -13, 7, 8, -11, -6, -4, -7, -9, 20, 2, -7, 14, -17}};

struct short_guess_rows {
  std::int8_t x[short_guess_count][41]{};
};
struct short_guess_weights {
  std::int8_t w[short_guess_count][40]{};
};
template <ctattn::quantization Q>
constexpr short_guess_weights softmax_of_short_guess_rows(const short_guess_rows& rows) noexcept {
  short_guess_weights out{};
  for (std::size_t i = 0; i < short_guess_count; ++i) {
    const auto n = static_cast<std::size_t>(rows.x[i][0]);
    ctattn::detail::kernels::int8_softmax_row(rows.x[i] + 1, out.w[i], 0, n,
                                              ctattn::detail::softmax_exp_table<Q>.data(), nullptr);
  }
  return out;
}
constexpr short_guess_rows make_short_guess_rows() noexcept {
  short_guess_rows rows{};
  for (std::size_t i = 0; i < short_guess_count; ++i) {
    for (std::size_t j = 0; j < 41; ++j) rows.x[i][j] = softmax_short_guess_rows[i][j];
  }
  return rows;
}

template <ctattn::quantization Q>
constexpr softmax_rows softmax_of(const operands& o) noexcept {
  softmax_rows out{};
  for (std::size_t n = 1; n <= softmax_width; ++n) {
    // Row n - 1 of the result: the softmax of n scores, taken from a's rows (a window that starts at n % 7).
    const std::int8_t* x = o.a[n % 3] + n % 7;
    ctattn::detail::kernels::int8_softmax_row(x, out.w[n - 1], 0, n, ctattn::detail::softmax_exp_table<Q>.data(),
                                              nullptr);
  }
  return out;
}

inline constexpr ctattn::quantization softmax_low{0.05, 3};
inline constexpr ctattn::quantization softmax_high{0.2, -7};
inline constexpr softmax_rows softmax_want_low = softmax_of<softmax_low>(softmax_scores());
inline constexpr softmax_rows softmax_want_high = softmax_of<softmax_high>(softmax_scores());
inline constexpr short_guess_weights softmax_want_short_guess =
    softmax_of_short_guess_rows<softmax_low>(make_short_guess_rows());

// At run time only: the constant-evaluated rows are the reference.
template <typename Read>
std::size_t softmax_mismatches(Read read) noexcept {
  constexpr ctattn::quantization low = softmax_low;
  constexpr ctattn::quantization high = softmax_high;
  const softmax_rows& want_low = softmax_want_low;
  const softmax_rows& want_high = softmax_want_high;
  const softmax_rows got_low = softmax_of<low>(read(softmax_scores()));
  const softmax_rows got_high = softmax_of<high>(read(softmax_scores()));
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  for (std::size_t n = 1; n <= softmax_width; ++n) {
    for (std::size_t j = 0; j < n; ++j) {
      bad += got_low.w[n - 1][j] == want_low.w[n - 1][j] ? 0u : 1u;
      bad += got_high.w[n - 1][j] == want_high.w[n - 1][j] ? 0u : 1u;
    }
  }
  const short_guess_weights got_short = softmax_of_short_guess_rows<low>(read(make_short_guess_rows()));
  for (std::size_t i = 0; i < short_guess_count; ++i) {
    for (std::size_t j = 0; j < static_cast<std::size_t>(softmax_short_guess_rows[i][0]); ++j) {
      bad += got_short.w[i][j] == softmax_want_short_guess.w[i][j] ? 0u : 1u;
    }
  }
  return bad;
}

// Rows longer than softmax_mismatches' (run-time only): 63 to 700 entries from an offset of 5, so that a backend's
// steps of 64 entries, its tails, and rows past the exponentials it keeps (256 on AVX-512) are all taken, against
// the scalar form (every entry marked visible, which the backends' forms leave to it); entries outside the row
// must keep their value.
template <typename Read>
std::size_t long_softmax_mismatches(Read read) noexcept {
  constexpr std::size_t longest = 700;
  struct long_row {
    std::int8_t x[longest + 10]{};
  };
  long_row row{};
  case_random random{12345};
  for (auto& v : row.x) v = static_cast<std::int8_t>(random.byte());
  row.x[300] = 127;
  const long_row x = read(row);
  static bool visible[longest + 10];
  for (bool& v : visible) v = true;
  std::uint32_t bad = 0;
  for (const std::size_t n : {63u, 64u, 65u, 127u, 200u, 255u, 256u, 257u, 300u, 700u}) {
    static std::int8_t got[longest + 10], want[longest + 10];
    for (std::size_t j = 0; j < longest + 10; ++j) got[j] = want[j] = 55;
    ctattn::detail::kernels::int8_softmax_row(x.x, got, 5, 5 + n, ctattn::detail::softmax_exp_table<softmax_low>.data(),
                                              nullptr);
    ctattn::detail::kernels::int8_softmax_row(x.x, want, 5, 5 + n,
                                              ctattn::detail::softmax_exp_table<softmax_low>.data(), visible);
    for (std::size_t j = 0; j < longest + 10; ++j) bad += got[j] == want[j] ? 0u : 1u;
  }
  return bad;
}

// The kernels' requantizer (output_requantizer: its doubling high product, which the Cortex-M0 builds from 16-bit
// multiplies, and its rounding shift) against math::multiply_by_quantized_multiplier and requantize, for
// accumulators at the int32 extremes, near powers of two and pseudo-random, with every multiplier of the cases.
struct requantizer_inputs {
  std::int32_t accumulators[40]{};
};
constexpr requantizer_inputs make_requantizer_inputs() noexcept {
  requantizer_inputs in{};
  const std::int32_t fixed[] = {0,
                                1,
                                -1,
                                2,
                                -2,
                                3,
                                -3,
                                1 << 30,
                                -(1 << 30),
                                2147483647,
                                -2147483647 - 1,
                                (1 << 30) - 1,
                                -(1 << 30) + 1,
                                12345678,
                                -12345678,
                                65535,
                                -65536,
                                65536,
                                255,
                                -256};
  std::size_t i = 0;
  for (const std::int32_t v : fixed) in.accumulators[i++] = v;
  case_random random{5};
  for (; i < 40; ++i) in.accumulators[i] = static_cast<std::int32_t>(random.word()) >> (i % 9);
  return in;
}

template <typename Read>
constexpr std::size_t requantizer_mismatches(Read read) noexcept {
  const requantizer_inputs in = read(make_requantizer_inputs());
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  const ctattn::math::quantized_multiplier extra[] = {{2147483647, -1}, {1 << 30, 0}, {1 << 30, -31}, {0, 0}};
  const auto check = [&](ctattn::math::quantized_multiplier m) {
    const ctattn::detail::kernels::output_requantizer r{m.multiplier, m.shift, -3};
    for (const std::int32_t a : in.accumulators) {
      bad += r.scaled(a) == ctattn::math::multiply_by_quantized_multiplier(a, m) ? 0u : 1u;
      bad += r(a) == ctattn::detail::kernels::requantize(a, m, -3) ? 0u : 1u;
    }
  };
  for (const auto& m : fc_multipliers) check(m);
  for (const auto& m : extra) check(m);
  return bad;
}

// Every fully-connected shape: rows 1 to 16 (a 2 x 2 tile and a rest; widened blocks of 1 to 6 rows, one or
// several, equal or not, over an even and an odd count of steps), inputs 1 to 70 at every tail of a step of 4 and
// of 16, channels 1 to 9 (passes of 2 and of 4, and rests).
template <typename Read>
constexpr std::size_t all_fully_connected_mismatches(Read read) noexcept {
  return fully_connected_mismatches<1, 1, 1>(read, 1) + fully_connected_mismatches<3, 3, 5>(read, 2) +
         fully_connected_mismatches<2, 4, 4>(read, 3) + fully_connected_mismatches<3, 5, 9>(read, 4) +
         fully_connected_mismatches<1, 15, 3>(read, 5) + fully_connected_mismatches<2, 16, 4>(read, 6) +
         fully_connected_mismatches<3, 17, 9>(read, 7) + fully_connected_mismatches<3, 33, 5>(read, 8) +
         fully_connected_mismatches<2, 64, 8>(read, 9) + fully_connected_mismatches<3, 70, 9>(read, 10) +
         fully_connected_mismatches<4, 32, 6>(read, 11) + fully_connected_mismatches<7, 12, 3>(read, 18) +
         fully_connected_mismatches<16, 8, 3>(read, 19) + fully_connected_mismatches<13, 20, 2>(read, 20) +
         fully_connected_mismatches<9, 7, 4>(read, 22) + transposed_product_mismatches<1, 1, 1>(read, 12) +
         transposed_product_mismatches<3, 3, 5>(read, 13) + transposed_product_mismatches<2, 16, 4>(read, 14) +
         transposed_product_mismatches<3, 17, 9>(read, 15) + transposed_product_mismatches<3, 70, 9>(read, 16) +
         transposed_product_mismatches<4, 32, 6>(read, 17) + transposed_product_mismatches<16, 8, 3>(read, 21) +
         requantizer_mismatches(read);
}

// Int8 LayerNorm (int8_layer_norm_rows) against its steps as written for constant evaluation
// (int8_layer_norm_normalized, int8_layer_norm_scaled, the last rounding), over rows of 18 values: pseudo-random,
// extreme, a row of equal values; per channel multipliers of both signs and zero, shifts from 23 to 63 (below,
// at and above 32) and biases at both int32 extremes, so that A_j saturates both ways; with a small variance term
// (step 4's shift below 32) and one held at 2^61 (32 or more).
inline constexpr std::size_t norm_width = 18;
inline constexpr std::int64_t layer_norm_epsilons[][2] = {{12345, 16}, {std::int64_t{1} << 61, 0}};
struct layer_norm_case {
  std::int8_t x[5][norm_width]{};
  std::int32_t multiplier[norm_width]{};
  std::int32_t shift[norm_width]{};
  std::int32_t bias[norm_width]{};
};

constexpr layer_norm_case make_layer_norm_case() noexcept {
  layer_norm_case c{};
  case_random random{11};
  const auto next = [&random]() noexcept { return random.byte(); };
  for (std::size_t r = 0; r < 3; ++r) {
    for (auto& v : c.x[r]) v = static_cast<std::int8_t>(next() >> r);
  }
  for (std::size_t j = 0; j < norm_width; ++j) {
    c.x[3][j] = static_cast<std::int8_t>(j % 3 == 0 ? 127 : -128);
    c.x[4][j] = -7;
  }
  const std::int32_t multipliers[] = {1 << 30, -2147483647, 1518500250, 0, -1234567890, 2000000000};
  const std::int32_t shifts[] = {23, 31, 32, 33, 40, 63, 24, 32, 36, 28, 45, 30};
  const std::int32_t biases[] = {0, 2147483647, -2147483647 - 1, 1 << 20, -(1 << 25), 65536 * 40 + 32768};
  for (std::size_t j = 0; j < 12; ++j) {
    c.multiplier[j] = multipliers[j % 6];
    c.shift[j] = shifts[j];
    c.bias[j] = biases[(j + j / 6) % 6];
  }
  // Channels 12 to 17: shifts below, at and above 32, each bias putting one output (row 0, 1 or 2, with the first
  // variance term) exactly on a tie of the last rounding where step 6 rounds its product up, one step below the tie
  // where it does not: an A_j one off either way changes that output.
  namespace k = ctattn::detail::kernels;
  const std::int32_t tie_shifts[] = {32, 32, 33, 36, 28, 23};
  for (std::size_t j = 12; j < norm_width; ++j) {
    c.shift[j] = tie_shifts[j - 12];
    bool found = false;
    for (std::size_t candidate = 0; candidate < 6 && !found; ++candidate) {
      const std::int32_t m = multipliers[(j + candidate) % 6] == 0 ? 1234567891 : multipliers[(j + candidate) % 6];
      for (std::size_t r = 0; r < 4 && !found; ++r) {
        const k::int8_layer_norm_row row = k::int8_layer_norm_row_of(
            c.x[r], layer_norm_epsilons[0][0], static_cast<std::int32_t>(layer_norm_epsilons[0][1]));
        const std::int64_t n = k::int8_layer_norm_normalized(c.x[r][j], row);
        const std::int64_t magnitude = (n < 0 ? -n : n) * (m < 0 ? -std::int64_t{m} : m);
        const std::int64_t scaled = k::int8_layer_norm_scaled(static_cast<std::int32_t>(n), m, c.shift[j], 0);
        found =
            (j % 2 == 0) == (((magnitude >> (c.shift[j] - 1)) & 1) == 1) && scaled > -(1 << 29) && scaled < (1 << 29);
        c.multiplier[j] = m;
        c.bias[j] = static_cast<std::int32_t>(3 * 65536 + 32768 - (j % 2 == 0 ? 0 : 1) - scaled);
      }
    }
  }
  return c;
}

// The case with every shift at least 32: the weights a backend's own LayerNorm rows take (Helium's), the others
// keeping the scalar path.
constexpr layer_norm_case with_shifts_of_32_or_more(layer_norm_case c) noexcept {
  for (auto& channel_shift : c.shift) channel_shift = channel_shift < 32 ? 64 - channel_shift : channel_shift;
  return c;
}

// The layers of the LayerNorm cases: as made (shifts below 32 from channel 0 on), every shift 32 or more, every
// shift 32 or more but one, in the last channel (the tail of Helium's 4 lanes) or in a middle one (these two must
// keep the scalar path: `layer_norm_smallest_shift` sees the one shift), and every shift 33 or more (Helium's
// shorter rows; the 32s made 33, the ties of channels 14 to 17 kept), and that one with the last shift 31 (a row the
// Cortex-M DSP's loop declines at its last channel).
constexpr layer_norm_case layer_norm_variant(int variant) noexcept {
  layer_norm_case c = variant == 0 ? make_layer_norm_case() : with_shifts_of_32_or_more(make_layer_norm_case());
  if (variant == 2) c.shift[norm_width - 1] = 31;
  if (variant == 3) c.shift[6] = 28;
  if (variant >= 4) {
    for (auto& channel_shift : c.shift) channel_shift = channel_shift == 32 ? 33 : channel_shift;
  }
  if (variant == 5) c.shift[norm_width - 1] = 31;
  return c;
}

template <typename Read>
constexpr std::size_t layer_norm_mismatches(Read read) noexcept {
  namespace k = ctattn::detail::kernels;
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  for (const int variant : {0, 1, 2, 3, 4, 5}) {
    const layer_norm_case c = read(layer_norm_variant(variant));
    if (!std::is_constant_evaluated()) {
      // Where the backend has its own rows it sees the smallest shift (at most 33), and takes exactly the layers
      // whose shifts are all 32 or more; or it reports 33 without reading them (the Cortex-M DSP's), its rows
      // testing each shift and declining a row with a smaller one (variant 0 at its first channel; 1, 2 and 3 at the
      // third, 5 at the last, after the outputs before it are stored).
      std::int32_t least = 33;
      for (const std::int32_t s : c.shift) least = s < least ? s : least;
      const bool has_rows = ctattn::detail::int8_declared<ctattn::detail::int8_ops>::has_layer_norm_row;
      const std::int32_t reported = k::backend_layer_norm_shift(c.shift);
      bad += (has_rows ? reported == least || reported == 33 : reported == -1) ? 0u : 1u;
      bad += variant == 4 && has_rows && least != 33 ? 1u : 0u;
    }
    for (const auto& epsilon : layer_norm_epsilons) {
      for (const std::int32_t zero : {-128, 0, 127}) {
        std::int8_t y[5][norm_width]{};
        k::int8_layer_norm_rows(c.x, y, c.multiplier, c.shift, c.bias, epsilon[0],
                                static_cast<std::int32_t>(epsilon[1]), zero);
        for (std::size_t r = 0; r < 5; ++r) {
          const k::int8_layer_norm_row row =
              k::int8_layer_norm_row_of(c.x[r], epsilon[0], static_cast<std::int32_t>(epsilon[1]));
          for (std::size_t j = 0; j < norm_width; ++j) {
            const std::int32_t n = k::int8_layer_norm_normalized(c.x[r][j], row);
            const std::int64_t a = k::int8_layer_norm_scaled(n, c.multiplier[j], c.shift[j], c.bias[j]);
            const std::int64_t q = k::rounding_shift(a, k::int8_layer_norm_output_fraction_bits) + zero;
            bad += y[r][j] == (q < -128 ? -128 : (q > 127 ? 127 : q)) ? 0u : 1u;
          }
        }
        // RMSNorm: each row centred on the input's zero point (the backends' sums of squares, Helium's by S1 and
        // S2), against the definition's sum of (q_j - z)^2.
        const std::int32_t in_zero = zero == 0 ? 9 : zero;  // -128 and 127: |q - z| up to 255
        std::int8_t rms[5][norm_width]{};
        k::int8_layer_norm_rows<true>(c.x, rms, c.multiplier, c.shift, c.bias, epsilon[0],
                                      static_cast<std::int32_t>(epsilon[1]), zero, in_zero);
        for (std::size_t r = 0; r < 5; ++r) {
          std::int64_t squares = 0;
          for (const std::int8_t v : c.x[r]) squares += (v - in_zero) * (v - in_zero);
          constexpr auto row_width = static_cast<std::int64_t>(norm_width);
          const k::int8_layer_norm_row row =
              k::int8_norm_row_from(k::int8_layer_norm_row{row_width, row_width * in_zero, 0, 37}, row_width * squares,
                                    epsilon[0], static_cast<std::int32_t>(epsilon[1]));
          for (std::size_t j = 0; j < norm_width; ++j) {
            const std::int32_t n = k::int8_layer_norm_normalized(c.x[r][j], row);
            const std::int64_t a = k::int8_layer_norm_scaled(n, c.multiplier[j], c.shift[j], c.bias[j]);
            const std::int64_t q = k::rounding_shift(a, k::int8_layer_norm_output_fraction_bits) + zero;
            bad += rms[r][j] == (q < -128 ? -128 : (q > 127 ? 127 : q)) ? 0u : 1u;
          }
        }
      }
    }
  }
  return bad;
}

// math::isqrt and math::narrow_quotient (LayerNorm's square root and reciprocal; on 32-bit Arm with a divide
// instruction, Newton's iteration and two-digit division) against their definitions: r^2 <= v < (r + 1)^2, and
// the 64-bit division, for edge values (0, squares and their neighbours, powers of two, the largest) and
// pseudo-random ones.
struct arithmetic_inputs {
  std::uint64_t values[64]{};
  std::uint32_t divisors[16]{};
};
constexpr arithmetic_inputs make_arithmetic_inputs() noexcept {
  arithmetic_inputs in{};
  std::size_t i = 0;
  const std::uint64_t fixed[] = {0,
                                 1,
                                 2,
                                 3,
                                 4,
                                 15,
                                 16,
                                 17,
                                 0xFFFF'FFFFu,
                                 std::uint64_t{1} << 32,
                                 std::uint64_t{1} << 60,
                                 (std::uint64_t{1} << 60) + 1,
                                 (std::uint64_t{1} << 62) - 1,
                                 std::uint64_t{1} << 62,
                                 ~std::uint64_t{0}};
  for (const std::uint64_t v : fixed) in.values[i++] = v;
  // The largest two: roots whose squares need all 64 bits.
  const std::uint64_t roots[] = {
      46341,       65535,       65536,       std::uint64_t{1} << 30, (std::uint64_t{1} << 31) - 1,
      3037000499u, 3037000500u, 0xFFFF'FFFFu};
  for (const std::uint64_t r : roots) {
    in.values[i++] = r * r - 1;
    in.values[i++] = r * r;
    in.values[i++] = r * r + 1;
  }
  std::uint64_t state = 3;
  for (; i < 64; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    in.values[i] = state >> (i % 37);
  }
  const std::uint32_t divisors[] = {
      1,          3,  0xFFFF,    0x10000,      0x10001, 1u << 30, (1u << 31) - 1, 1u << 31, 0xFFFF'FFFFu,
      1518500250, 77, 123456789, 0x8000'0001u, 46341,   2,        1u << 16};
  for (std::size_t j = 0; j < 16; ++j) in.divisors[j] = divisors[j];
  return in;
}

template <typename Read>
constexpr std::size_t arithmetic_mismatches(Read read) noexcept {
  const arithmetic_inputs in = read(make_arithmetic_inputs());
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  for (const std::uint64_t v : in.values) {
    const std::uint64_t r = ctattn::math::isqrt(v);
    const bool above = r == 0xFFFF'FFFFu || (r + 1) * (r + 1) > v;
    bad += r * r <= v && above ? 0u : 1u;
  }
  for (const std::uint32_t d : in.divisors) {
    for (const std::uint64_t v : in.values) {
      // Numerators below d 2^32: the value itself where it is, else reduced; and the largest one.
      const std::uint64_t n = (v >> 32) < d ? v : v % (std::uint64_t{d} << 32);
      bad += ctattn::math::narrow_quotient(n, d) == n / d ? 0u : 1u;
    }
    const std::uint64_t largest = (std::uint64_t{d} << 32) - 1;
    bad += ctattn::math::narrow_quotient(largest, d) == largest / d ? 0u : 1u;
  }
  return bad;
}

// The scores of G query heads sharing one key head (kernels::int8_group_dot_rows: one pass over the keys on Helium
// and the Cortex-M DSP, int8_dot_rows per head elsewhere) and their weights times the shared rows of values (the
// backend's `weighted_rows`, where it has one for D and G: Helium's, the DSP's for one query), each sum against a
// plain loop: heads of 8 and 16 terms, groups of 1, 2 and 4, 0 to 13 keys from a row past the first, zero points at
// both ends.
struct group_case {
  std::int8_t q[1][80]{};
  std::int8_t k[16][40]{};
  std::int8_t w[4][16]{};
};
constexpr group_case make_group_case(std::uint32_t seed) noexcept {
  group_case c{};
  case_random random{seed};
  const auto next = [&random]() noexcept { return static_cast<std::int8_t>(random.byte()); };
  for (auto& v : c.q[0]) v = next();
  for (auto& row : c.k) {
    for (auto& v : row) v = next();
  }
  for (auto& row : c.w) {
    for (auto& v : row) v = next();
  }
  c.q[0][3] = -128;
  c.k[2][5] = 127;
  return c;
}
template <std::size_t DK, std::size_t G>
constexpr std::uint32_t group_case_mismatches(const group_case& c, std::int32_t q_zero, std::int32_t k_zero) noexcept {
  std::uint32_t bad = 0;
  for (std::size_t n = 0; n <= 13; ++n) {
    // Scores: heads from column 8 of q, keys from row 1, column 4 of k.
    std::int32_t sums[G][16]{};
    ctattn::detail::kernels::int8_group_dot_rows<DK, G>(c.q, 0, 8, q_zero, c.k, 1, 4, k_zero, n, sums);
    for (std::size_t i = 0; i < G; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        std::int32_t want = 0;
        for (std::size_t t = 0; t < DK; ++t) want += (c.q[0][8 + i * DK + t] - q_zero) * (c.k[1 + j][4 + t] - k_zero);
        bad += sums[i][j] == want ? 0u : 1u;
      }
    }
    // Weighted rows: the weights of row i from column 2, the values from row 1, column 4 (k's bytes stand in).
    std::int8_t weights[G][16]{};
    for (std::size_t i = 0; i < G; ++i) {
      for (std::size_t j = 0; j < 16; ++j) weights[i][j] = c.w[i][j];
    }
    std::int32_t weighted[G][16]{};
    if (std::is_constant_evaluated() || n == 0 ||
        !ctattn::detail::kernels::backend_weighted_rows<DK>(weights, 2, q_zero, &c.k[1][4], 40, k_zero, n, weighted)) {
      continue;  // no backend form for DK and G here: the portable loop is int8_attend_group's own
    }
    for (std::size_t i = 0; i < G; ++i) {
      for (std::size_t col = 0; col < DK; ++col) {
        std::int32_t want = 0;
        for (std::size_t j = 0; j < n; ++j) want += (c.w[i][2 + j] - q_zero) * (c.k[1 + j][4 + col] - k_zero);
        bad += weighted[i][col] == want ? 0u : 1u;
      }
    }
  }
  return bad;
}
template <typename Read>
constexpr std::size_t group_mismatches(Read read) noexcept {
  std::uint32_t bad = 0;
  const group_case c = read(make_group_case(61));
  for (const auto& zeros : zero_points) {
    bad += group_case_mismatches<8, 1>(c, zeros[0], zeros[1]) + group_case_mismatches<8, 2>(c, zeros[0], zeros[1]);
    bad += group_case_mismatches<8, 4>(c, zeros[0], zeros[1]) + group_case_mismatches<16, 2>(c, zeros[0], zeros[1]);
  }
  return bad;
}

// The 64-bit LCG of the arithmetic cases (Knuth's MMIX constants): state advanced, and returned.
constexpr std::uint64_t next_of_lcg(std::uint64_t& state) noexcept {
  state = state * 6364136223846793005u + 1442695040888963407u;
  return state;
}

// math::isqrt over more values than arithmetic_inputs holds: 2,000 from an LCG at every bit width from 1 to 64, and
// the squares of 1,000 roots from an LCG (every width to 32) with their neighbours, each root checked by
// r^2 <= v < (r + 1)^2 (on 32-bit Arm the run-time form's estimate and correction, elsewhere the digit-by-digit one).
// The values are made as they are checked, from a seed read at run time (no 40 KB table on a board's stack).
template <typename Read>
constexpr std::size_t isqrt_mismatches(Read read) noexcept {
  std::uint64_t state = read(std::uint64_t{11});
  const auto next = [&state]() noexcept { return next_of_lcg(state); };
  std::uint32_t bad = 0;
  const auto check = [&bad](std::uint64_t v) noexcept {
    const std::uint64_t r = ctattn::math::isqrt(v);
    const bool above = r == 0xFFFF'FFFFu || (r + 1) * (r + 1) > v;
    bad += r * r <= v && above ? 0u : 1u;
  };
  for (std::size_t i = 0; i < 2000; ++i) check(next() >> (i % 64));
  for (std::size_t j = 0; j < 1000; ++j) {
    const std::uint64_t r = (next() >> 32) >> (j % 32);
    check(r * r);
    check(r * r + 2 * r);  // (r + 1)^2 - 1
    check(r * r + r);
  }
  return bad;
}

// math::reciprocal_guess (the softmax rows' reciprocal of 2 sum) over its whole domain's edges and 1,000 divisors
// from an LCG at every width from 22 to 32 bits: floor(2^40 / d) - 128 <= r <= floor(2^40 / d), and for the
// numerators that try the guess hardest (the largest, 2^32 - 1; each side of the last multiple of d below 2^32;
// one from the LCG) the guess floor(n r / 2^40) is floor(n / d) or one less.
template <typename Read>
constexpr std::size_t reciprocal_guess_mismatches(Read read) noexcept {
  std::uint64_t state = read(std::uint64_t{5});
  const auto next = [&state]() noexcept { return next_of_lcg(state); };
  std::uint32_t bad = 0;
  const auto check = [&bad, &next](std::uint32_t d) noexcept {
    const std::uint64_t exact = (std::uint64_t{1} << 40) / d;
    const std::uint64_t r = ctattn::math::reciprocal_guess(d);
    bad += r <= exact && exact - r <= 128 ? 0u : 1u;
    const std::uint64_t last_multiple = 0xFFFF'FFFFu / d * d;
    const std::uint64_t numerators[] = {0xFFFF'FFFFu, last_multiple, last_multiple - 1, next() >> 32};
    for (const std::uint64_t n : numerators) {
      const std::uint64_t guess = (n * r) >> 40;
      bad += guess <= n / d && guess + 1 >= n / d ? 0u : 1u;
    }
  };
  const std::uint32_t edges[] = {1u << 21,       (1u << 21) + 1, (1u << 21) + 511, (1u << 21) + 512,
                                 (1u << 22) - 1, 1u << 22,       (1u << 31) - 1,   1u << 31,
                                 0xFFFF'FE00u,   0xFFFF'FDFFu,   0xFFFF'FFFEu,     0xFFFF'FFFFu};
  for (const std::uint32_t d : edges) check(d);
  for (std::size_t i = 0; i < 1000; ++i) {
    const auto bits = static_cast<int>(22 + i % 11);
    const auto d = static_cast<std::uint32_t>((next() >> (64 - bits)) | (std::uint64_t{1} << (bits - 1)));
    check(d);
  }
  return bad;
}

// Int8 ADD (int8_add_rows: 4 lanes on Helium, the requantizers elsewhere) against TFLite's steps written with
// math::multiply_by_quantized_multiplier and saturation, over 3 x 7 and 9 x 5 blocks of the operands (elements in
// steps of 4 and tails of 1), with input shifts 0 to -31, output shifts from 3 to -31, multipliers below and at
// 2^30, zero points at their extremes, sums that saturate, and ties at every rounding shift.
template <ctattn::math::quantized_multiplier A, ctattn::math::quantized_multiplier B,
          ctattn::math::quantized_multiplier Out, std::size_t R, std::size_t C>
constexpr std::uint32_t add_case_mismatches(const std::int8_t (&a)[R][C], const std::int8_t (&b)[R][C],
                                            std::int32_t a_zero, std::int32_t b_zero, std::int32_t out_zero) noexcept {
  constexpr int left_shift = 20;
  std::int8_t got[R][C]{};
  ctattn::detail::kernels::int8_add_rows<A, B, left_shift, Out>(a, a_zero, b, b_zero, out_zero, got);
  // And row by row (the int8 embedding's form), which must give the same bits.
  std::int8_t by_row[R][C]{};
  for (std::size_t r = 0; r < R; ++r) {
    ctattn::detail::kernels::int8_add_row<A, B, left_shift, Out>(a[r], a_zero, b[r], b_zero, out_zero, by_row[r]);
  }
  std::uint32_t bad = 0;
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      bad += got[r][c] == by_row[r][c] ? 0u : 1u;
      const std::int32_t x = ctattn::math::multiply_by_quantized_multiplier((a[r][c] - a_zero) * (1 << left_shift), A);
      const std::int32_t y = ctattn::math::multiply_by_quantized_multiplier((b[r][c] - b_zero) * (1 << left_shift), B);
      const std::int32_t v = ctattn::math::multiply_by_quantized_multiplier(x + y, Out) + out_zero;
      bad += got[r][c] == static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v)) ? 0u : 1u;
    }
  }
  return bad;
}

template <std::size_t R, std::size_t C>
struct add_operands {
  std::int8_t a[R][C]{};
  std::int8_t b[R][C]{};
};
template <std::size_t R, std::size_t C>
constexpr add_operands<R, C> make_add_operands(std::uint32_t seed) noexcept {
  const operands o = make_operands(seed);
  add_operands<R, C> p{};
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      p.a[r][c] = o.a[r % 3][r * C + c];
      p.b[r][c] = o.b[r % 9][c];
    }
  }
  p.a[0][0] = -128;
  p.b[0][0] = 127;
  return p;
}

// int8_lookup_rows (an int8 activation's table, Helium's gather) against table[x + 128], over every int8 value in
// rows of 40 (two of Helium's steps of 16 and a tail of 8).
struct lookup_case {
  std::int8_t x[8][40]{};
  std::int8_t table[256]{};
};
constexpr lookup_case make_lookup_case() noexcept {
  lookup_case c{};
  for (std::size_t r = 0; r < 8; ++r) {
    for (std::size_t col = 0; col < 40; ++col) {
      c.x[r][col] = static_cast<std::int8_t>(static_cast<int>((r * 40 + col * 7) % 256) - 128);
    }
  }
  for (std::size_t v = 0; v < 256; ++v) {
    c.table[v] = static_cast<std::int8_t>(static_cast<int>((v * 89 + 17) % 256) - 128);
  }
  return c;
}

template <typename Read>
constexpr std::size_t lookup_mismatches(Read read) noexcept {
  const lookup_case c = read(make_lookup_case());
  std::int8_t y[8][40]{};
  ctattn::detail::kernels::int8_lookup_rows(c.x, y, c.table);
  std::uint32_t bad = 0;
  for (std::size_t r = 0; r < 8; ++r) {
    for (std::size_t col = 0; col < 40; ++col) {
      bad += y[r][col] == c.table[static_cast<std::size_t>(c.x[r][col] + 128)] ? 0u : 1u;
    }
  }
  return bad;
}

// int8_first_largest (greedy decoding's argmax, Helium's `vmaxv` and compare) against a plain loop: rows of every
// length from 1 to 40 and of 512 (whole steps of 16, tails, one value), values from an LCG in a narrow range so that
// the largest repeats, and rows whose largest is only at the first entry, only at the last, or everywhere.
struct first_largest_case {
  std::int8_t x[512]{};
};
constexpr first_largest_case make_first_largest_case(std::uint32_t seed, int spread) noexcept {
  first_largest_case c{};
  case_random random{seed};
  for (auto& v : c.x) {
    v = static_cast<std::int8_t>(static_cast<int>((random.word() >> 24) % static_cast<std::uint32_t>(spread)) - 128);
  }
  return c;
}
constexpr std::size_t first_largest_by_loop(const std::int8_t* x, std::size_t n) noexcept {
  std::size_t best = 0;
  for (std::size_t j = 1; j < n; ++j) best = x[j] > x[best] ? j : best;
  return best;
}

template <typename Read>
constexpr std::size_t first_largest_mismatches(Read read) noexcept {
  std::uint32_t bad = 0;
  const auto check = [&bad](const first_largest_case& c, std::size_t n) {
    bad += ctattn::detail::kernels::int8_first_largest(c.x, n) == first_largest_by_loop(c.x, n) ? 0u : 1u;
  };
  for (const int spread : {3, 40, 256}) {
    const first_largest_case c = read(make_first_largest_case(51u + static_cast<std::uint32_t>(spread), spread));
    for (std::size_t n = 1; n <= 40; ++n) check(c, n);
    check(c, 512);
  }
  first_largest_case edges{};
  for (auto& v : edges.x) v = -128;  // every entry the largest: index 0
  check(read(edges), 512);
  edges.x[511] = 127;  // only the last of 512, past the whole steps of any row length
  check(read(edges), 512);
  edges.x[0] = 127;  // the first and the last equal: the first
  check(read(edges), 512);
  edges.x[0] = -128;
  edges.x[16] = 5;  // the first entry of the second step, in a row of 17
  check(read(edges), 17);
  bad += ctattn::detail::kernels::int8_first_largest(read(edges).x, 0) == 0 ? 0u : 1u;  // no entry: 0
  return bad;
}

template <typename Read>
constexpr std::size_t add_mismatches(Read read) noexcept {
  using m = ctattn::math::quantized_multiplier;
  const auto small = read(make_add_operands<3, 7>(31));
  const auto large = read(make_add_operands<9, 5>(32));
  std::uint32_t bad = 0;  // 32 bits: Clang 14 fails to generate AVX-512 code for a 64-bit count
  // Inputs at half the larger scale (shift -1) and below it; outputs scaling down and up.
  bad += add_case_mismatches<m{1073741824, -1}, m{1503238554, -2}, m{1717986918, -18}>(small.a, small.b, 3, -7, 5);
  bad +=
      add_case_mismatches<m{1073741824, -1}, m{858993459, -3}, m{1288490189, -13}>(large.a, large.b, -128, 127, -128);
  bad += add_case_mismatches<m{1073741824, 0}, m{536870912, -31}, m{1932735283, 3}>(small.a, small.b, 127, -128, 127);
  bad += add_case_mismatches<m{2147483647, -20}, m{1073741824, -1}, m{1073741824, -31}>(large.a, large.b, 0, 0, 0);
  bad += add_case_mismatches<m{1374389535, -1}, m{1073741824, -1}, m{1073741824, -20}>(large.a, large.b, -3, 17, -9);
  // Halves and quarters of the inputs, summed and passed through (x 2 x 0.5) or halved: a tie in every other
  // element at each rounding shift, where rounding half up and half away from zero differ for negative values.
  bad += add_case_mismatches<m{1073741824, -20}, m{1073741824, -21}, m{1073741824, 1}>(small.a, small.b, 3, -4, 0);
  bad += add_case_mismatches<m{1073741824, -20}, m{1073741824, -20}, m{1073741824, -1}>(large.a, large.b, 0, 0, -5);
  return bad;
}

// Int8 MUL (int8_multiply_rows: 4 lanes on Helium, 4 elements a step on the DSP, the requantizers elsewhere) against
// TFLite's steps written with math::multiply_by_quantized_multiplier and saturation, over the ADD cases' 3 x 7 and
// 9 x 5 operands (elements in steps of 4 and tails of 1, and 2 x 7 and 1 x 11 for tails of 2 and 3), with shifts from
// 15 (the largest Helium's form takes, products of 255^2 among them) and 16 (past it) to -31, multipliers below and
// at 2^30 and the largest, zero points at their extremes (products of 255^2), outputs that saturate, and ties at
// every rounding shift.
template <ctattn::math::quantized_multiplier M, std::size_t R, std::size_t C>
constexpr std::uint32_t multiply_case_mismatches(const std::int8_t (&a)[R][C], const std::int8_t (&b)[R][C],
                                                 std::int32_t a_zero, std::int32_t b_zero,
                                                 std::int32_t out_zero) noexcept {
  std::int8_t got[R][C]{};
  ctattn::detail::kernels::int8_multiply_rows<M>(a, a_zero, b, b_zero, out_zero, got);
  std::uint32_t bad = 0;
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      const std::int32_t p = (a[r][c] - a_zero) * (b[r][c] - b_zero);
      const std::int64_t v = std::int64_t{ctattn::math::multiply_by_quantized_multiplier(p, M)} + out_zero;
      bad += got[r][c] == static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v)) ? 0u : 1u;
    }
  }
  return bad;
}

template <typename Read>
constexpr std::size_t multiply_mismatches(Read read) noexcept {
  using m = ctattn::math::quantized_multiplier;
  const auto small = read(make_add_operands<3, 7>(33));
  const auto large = read(make_add_operands<9, 5>(34));
  std::uint32_t bad = 0;
  // A gate's scales (a product of two steps to one step: shifts -7 to -14), both zero points' signs.
  bad += multiply_case_mismatches<m{1288490189, -7}>(small.a, small.b, 3, -7, 5);
  bad += multiply_case_mismatches<m{1717986918, -14}>(large.a, large.b, -120, -1, 9);
  // Products of 255^2 (zero points at the extremes), scaled down a little and a lot, and up (saturating).
  bad += multiply_case_mismatches<m{2147483647, -10}>(large.a, large.b, -128, 127, -128);
  bad += multiply_case_mismatches<m{1073741824, -31}>(small.a, small.b, 127, -128, 127);
  bad += multiply_case_mismatches<m{1073741824, 15}>(small.a, small.b, 0, 0, 0);
  bad += multiply_case_mismatches<m{1073741824, 15}>(large.a, large.b, 127, -128, 0);  // 255^2 2^15 < 2^31
  bad += multiply_case_mismatches<m{1073741824, 16}>(large.a, large.b, 0, 0, 0);
  bad += multiply_case_mismatches<m{1503238554, 3}>(large.a, large.b, 2, -2, -3);
  // Halves and quarters: x 2^-1 and x 2^-2 of integers (multiplier 2^30 is one half), a tie in every other element
  // at each rounding shift, where rounding half up and half away from zero differ for negative values.
  bad += multiply_case_mismatches<m{1073741824, 0}>(small.a, small.b, 3, -4, 0);
  bad += multiply_case_mismatches<m{1073741824, -1}>(large.a, large.b, 0, 1, -5);
  // Tails of 2 and 3 past the DSP's steps of 4 (14 and 11 elements).
  const auto fourteen = read(make_add_operands<2, 7>(35));
  const auto eleven = read(make_add_operands<1, 11>(36));
  bad += multiply_case_mismatches<m{1288490189, -7}>(fourteen.a, fourteen.b, -128, 127, 4);
  bad += multiply_case_mismatches<m{1073741824, -1}>(eleven.a, eleven.b, 5, -3, -2);
  return bad;
}

// requantize_values (one query's scores and outputs in int8 attention: 4 lanes on Helium, one value at a time
// elsewhere) against TFLite's steps written with math::multiply_by_quantized_multiplier and saturation: prefixes of
// 37 sums (lengths 0 to 35 in steps of 5, and 37: every tail of 4 lanes), the int32 extremes, ties of the multiplier
// one half at shifts -1 and -20 (+-2, +-6, +-2^20), and magnitudes from 2^0 to 2^30 with random low bits, with
// shifts from 31 to -31 and multipliers from 2^30 to the largest.
struct requantize_sums {
  std::int32_t values[37]{};
};
constexpr requantize_sums make_requantize_sums() noexcept {
  requantize_sums s{};
  const std::int32_t edges[] = {-2147483647 - 1, 2147483647, 0, 1,  -1, 1 << 20, -(1 << 20),
                                3 << 19,         -(3 << 19), 2, -2, 6,  -6};
  for (std::size_t j = 0; j < 13; ++j) s.values[j] = edges[j];
  case_random random{0x2545F491u};
  for (std::size_t j = 13; j < 37; ++j) {
    const std::uint32_t state = random.word();
    // Magnitudes from 2^0 to 2^30: the top bit and random bits below it.
    const auto magnitude = static_cast<std::int32_t>((state >> 8) & ((1u << (j % 31)) - 1u)) | (1 << (j % 31));
    s.values[j] = (state & 1u) != 0 ? -magnitude : magnitude;
  }
  return s;
}

template <ctattn::math::quantized_multiplier M>
constexpr std::uint32_t requantize_case_mismatches(const requantize_sums& s, std::int32_t zero) noexcept {
  std::uint32_t bad = 0;
  for (const std::size_t n : {0u, 5u, 10u, 15u, 20u, 25u, 30u, 35u, 37u}) {
    std::int8_t got[38]{};
    got[n] = 42;  // a value past the n written must stay
    ctattn::detail::kernels::requantize_values<M>(s.values, zero, got, n);
    bad += got[n] == 42 ? 0u : 1u;
    for (std::size_t j = 0; j < n; ++j) {
      const std::int64_t v = std::int64_t{ctattn::math::multiply_by_quantized_multiplier(s.values[j], M)} + zero;
      bad += got[j] == static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v)) ? 0u : 1u;
    }
  }
  return bad;
}

template <typename Read>
constexpr std::size_t requantize_values_mismatches(Read read) noexcept {
  using m = ctattn::math::quantized_multiplier;
  const requantize_sums s = read(make_requantize_sums());
  std::uint32_t bad = 0;
  bad += requantize_case_mismatches<m{1073741824, -20}>(s, 0);
  bad += requantize_case_mismatches<m{1073741824, -1}>(s, -128);
  bad += requantize_case_mismatches<m{2147483647, -31}>(s, 127);
  bad += requantize_case_mismatches<m{1518500250, -9}>(s, 5);
  bad += requantize_case_mismatches<m{1288490189, 0}>(s, -3);
  bad += requantize_case_mismatches<m{1073741824, 3}>(s, 9);
  bad += requantize_case_mismatches<m{1932735283, 31}>(s, -1);
  return bad;
}

// int8_rotate_heads (an int8 llama's RoPE: 4 pairs a step on Helium, a gather and a scatter for interleaved pairs)
// against the rotation written out: rows of 3 heads of 6, 8 and 10 values (3, 4 and 5 pairs: a tail of 3, none, a
// tail of 1), both pairings, zero points at their extremes and 0, cosines and sines from -32767 to 32767 (position
// 0's 32767 and 0 among them), values that saturate.
struct rotation_case {
  std::int8_t row[30]{};
  std::int16_t cos[5]{};
  std::int16_t sin[5]{};
};
constexpr rotation_case make_rotation_case(std::uint32_t seed) noexcept {
  rotation_case c{};
  case_random random{seed};
  const auto next = [&random] { return random.word() >> 8; };
  for (auto& v : c.row) v = static_cast<std::int8_t>(static_cast<int>(next() % 256) - 128);
  c.row[0] = -128;
  c.row[1] = 127;
  const std::int16_t edges[] = {32767, 0, -32767, 23170, -1};
  for (std::size_t p = 0; p < 5; ++p) {
    c.cos[p] = (seed & 1u) != 0 ? edges[p] : static_cast<std::int16_t>(static_cast<int>(next() % 65535) - 32767);
    c.sin[p] =
        (seed & 1u) != 0 ? edges[(p + 1) % 5] : static_cast<std::int16_t>(static_cast<int>(next() % 65535) - 32767);
  }
  return c;
}

template <std::size_t HeadDim, bool Interleaved>
constexpr std::uint32_t rotation_case_mismatches(const rotation_case& c, std::int32_t zero) noexcept {
  constexpr std::size_t heads = 3;
  std::int8_t got[30]{};
  for (std::size_t j = 0; j < 30; ++j) got[j] = c.row[j];
  ctattn::detail::kernels::int8_rotate_heads<HeadDim, Interleaved>(got, heads, c.cos, c.sin, zero);
  std::uint32_t bad = 0;
  for (std::size_t j = heads * HeadDim; j < 30; ++j) bad += got[j] == c.row[j] ? 0u : 1u;  // past the heads: kept
  // floor((v + 2^14) / 2^15) (half up) plus the zero point, clamped.
  const auto rounded = [zero](std::int64_t v) {
    const std::int64_t shifted = v + 16384;
    const std::int64_t q = (shifted >= 0 ? shifted / 32768 : -((-shifted + 32767) / 32768)) + zero;
    return static_cast<std::int8_t>(q < -128 ? -128 : (q > 127 ? 127 : q));
  };
  for (std::size_t h = 0; h < heads; ++h) {
    for (std::size_t p = 0; p < HeadDim / 2; ++p) {
      const std::size_t first = h * HeadDim + (Interleaved ? 2 * p : p);
      const std::size_t second = h * HeadDim + (Interleaved ? 2 * p + 1 : p + HeadDim / 2);
      const std::int64_t a = c.row[first] - zero;
      const std::int64_t b = c.row[second] - zero;
      bad += got[first] == rounded(a * c.cos[p] - b * c.sin[p]) ? 0u : 1u;
      bad += got[second] == rounded(a * c.sin[p] + b * c.cos[p]) ? 0u : 1u;
    }
  }
  return bad;
}

template <typename Read>
constexpr std::size_t rotation_mismatches(Read read) noexcept {
  std::uint32_t bad = 0;
  for (const std::uint32_t seed : {41u, 42u, 43u}) {
    const rotation_case c = read(make_rotation_case(seed));
    for (const std::int32_t zero : {-128, 0, 5, 127}) {
      bad += rotation_case_mismatches<6, true>(c, zero) + rotation_case_mismatches<6, false>(c, zero);
      bad += rotation_case_mismatches<8, true>(c, zero) + rotation_case_mismatches<8, false>(c, zero);
      bad += rotation_case_mismatches<10, true>(c, zero) + rotation_case_mismatches<10, false>(c, zero);
    }
  }
  return bad;
}

// Every case of this header, once (tests/support/case_list.hpp): tests/static, tests/runtime, tests/backend and
// the firmware image images/int8_kernel_cases.cpp each run the cases marked for them.
// Rationale: constant evaluation takes the dot products over two spans of lengths and leaves the largest
// products and the softmax's long rows to the compiled runners (compile time).
inline constexpr auto every_case = std::tuple{
    test_case{"int8_dot_rows, lengths 1 to 20", in_constant_evaluation,
              [](auto read) { return all_mismatches(read, 1, 20); }},
    test_case{"int8_dot_rows, lengths 61 to 70", in_constant_evaluation,
              [](auto read) { return all_mismatches(read, 61, 70); }},
    test_case{"int8_dot_rows, lengths 1 to 70", compiled, [](auto read) { return all_mismatches(read); }},
    test_case{"int8_fully_connected and the products", every_runner,
              [](auto read) { return all_fully_connected_mismatches(read); }},
    test_case{"int8 one-row products (a decoding step's)", every_runner,
              [](auto read) { return one_row_product_mismatches(read); }},
    test_case{"int4_fully_connected", every_runner,
              [](auto read) { return all_int4_fully_connected_mismatches(read); }},
    test_case{"int4_fully_connected, large", at_run_time | with_each_backend,
              [](auto read) { return large_int4_fully_connected_mismatches(read); }},
    test_case{"int8_fully_connected, large", at_run_time | with_each_backend,
              [](auto read) { return large_fully_connected_mismatches(read); }},
    test_case{"transposed products, large", at_run_time | with_each_backend,
              [](auto read) { return large_transposed_product_mismatches(read); }},
    test_case{"LayerNorm and RMSNorm rows", every_runner, [](auto read) { return layer_norm_mismatches(read); }},
    test_case{"LayerNorm's integer arithmetic", every_runner, [](auto read) { return arithmetic_mismatches(read); }},
    test_case{"integer square roots", every_runner, [](auto read) { return isqrt_mismatches(read); }},
    test_case{"the softmax's reciprocal guess", every_runner,
              [](auto read) { return reciprocal_guess_mismatches(read); }},
    test_case{"grouped heads' scores and weighted rows", every_runner,
              [](auto read) { return group_mismatches(read); }},
    test_case{"ADD", every_runner, [](auto read) { return add_mismatches(read); }},
    test_case{"MUL", every_runner, [](auto read) { return multiply_mismatches(read); }},
    test_case{"requantized values", every_runner, [](auto read) { return requantize_values_mismatches(read); }},
    test_case{"RoPE of int8 heads", every_runner, [](auto read) { return rotation_mismatches(read); }},
    test_case{"table lookup", every_runner, [](auto read) { return lookup_mismatches(read); }},
    test_case{"first largest (greedy argmax)", every_runner, [](auto read) { return first_largest_mismatches(read); }},
    test_case{"softmax rows of every length to 40", compiled, [](auto read) { return softmax_mismatches(read); }},
    test_case{"softmax, long rows", at_run_time | with_each_backend,
              [](auto read) { return long_softmax_mismatches(read); }},
};

}  // namespace ctattn_test::int8_kernel_cases
