// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_INT16_HPP
#define CTATTN_KERNELS_INT16_HPP

/// \file
/// The int16 kernels: TFLite's 16x8 arithmetic (int16 activations, int8 weights), element for element as TFLite
/// Micro's reference kernels compute it, so that a 16x8 model gives the same bits here as in TFLite Micro and
/// CMSIS-NN. Their sums are integers: constant evaluation and run time agree bit for bit.
///
/// | kernel                                               | computes (TFLite's operator)                           |
/// |------------------------------------------------------|--------------------------------------------------------|
/// | `requantize_int64(acc, m)`                           | clamp(int32(acc times m reduced to 16 bits), int16)    |
/// | `convert_rows<M>(x, x_zero, y_zero, y)`              | QUANTIZE between int8 and int16                        |
/// | `int16_product_transposed(a, b, m, out)`             | BATCH_MATMUL: sum_k a_ik b_jk in int64, requantized    |
/// | `int16_fully_connected(x, w, bias, multipliers, y)`  | FULLY_CONNECTED 16x8: int16 x int8 in int64 + int64 bias |
/// | `int16_add_rows<A, B, Out>(a, b, out)`               | ADD: each input times 2^15 and its multiplier, summed, requantized |
/// | `int16_multiply_rows<M>(a, b, out)`                  | MUL: the int32 product, requantized                    |
/// | `int16_table_lookup(v, table)`                       | a 513-entry table read with 7 bits of interpolation    |
/// | `int16_softmax_row<Input>(x, y, n)`                  | SOFTMAX: e^x and 1 / sum by the two tables             |
/// | `int16_lookup_rows(x, y, table)`                     | an activation: each element read from its 513-entry table (ctattn's) |
/// | `int16_layer_norm_rows<RMS>(x, y, ...)`              | LayerNorm (or RMSNorm) of each row in integers (ctattn's: quantized/norm.hpp) |
///
/// Requantization: an int64 accumulator (FULLY_CONNECTED, BATCH_MATMUL) goes through
/// `math::multiply_by_reduced_multiplier` (the multiplier reduced to 16 bits, one rounding half up), an int32 value
/// (ADD, MUL, QUANTIZE, softmax's input) through `math::multiply_by_quantized_multiplier`'s bits (by the int8
/// kernels' `output_requantizer::scaled`: one `smmlar` on the DSP extension), as TFLite picks the
/// overload by the accumulator's type. Every kernel here is the scalar loop, but at run time where the build's int8
/// row has int16 kernels (`int16_ops`): the products on the Cortex-M DSP extension (kernels/arm_dsp_int16.hpp), the
/// products, ADD and MUL with Helium (kernels/helium_int16.hpp), and the products on AVX2, AVX-512 and NEON
/// (kernels/avx2_int16.hpp, avx512_int16.hpp, neon_int16.hpp over kernels/detail/int16_simd.hpp); the same bits.
///
/// Example:
/// \code
///   const std::int16_t a[1][2]{{300, -200}}, b[1][2]{{100, 50}};
///   std::int16_t c[1][1]{};
///   ctattn::detail::kernels::int16_product_transposed(a, b, ctattn::math::quantize_multiplier(0.01), c);  // {{200}}
/// \endcode

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ctattn/detail/config.hpp"
#include "ctattn/kernels/arm_dsp_int16.hpp"
#include "ctattn/kernels/avx2_int16.hpp"
#include "ctattn/kernels/avx512_int16.hpp"
#include "ctattn/kernels/detail/int16_requantize.hpp"
#include "ctattn/kernels/detail/int16_softmax_tables.hpp"
#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/kernels/helium_int16.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/kernels/neon_int16.hpp"
#include "ctattn/math/fixed_point.hpp"

namespace ctattn::detail {
/// The 16x8 operations of the int8 row this build runs (`int8_row::int16_ops`: the Cortex-M DSP's products,
/// kernels/arm_dsp_int16.hpp; Helium's, kernels/helium_int16.hpp; AVX2's, AVX-512's or NEON's), or `void`.
using int16_product_ops = int8_row::int16_ops;
/// The same as declared (kernels/detail/ops_defaults.hpp): the defaults where the row has none.
using int16_declared = declared_ops<int16_product_ops, int16_ops_defaults>;
}  // namespace ctattn::detail

namespace ctattn::detail::kernels {

/// The stack bytes `int16_fully_connected` takes for M rows of K terms on this build (the backend's paired rows).
template <std::size_t M, std::size_t K>
inline constexpr std::size_t int16_product_stack_bytes =
    int16_declared::template takes<K> ? int16_declared::template stack_bytes<M, K> : 0;

/// y = clamp(mbqm(x - x_zero, M) + y_zero): TFLite's QUANTIZE from a quantized tensor to another (int8 to int16,
/// int16 to int8).
template <math::quantized_multiplier M, std::size_t R, std::size_t C, typename In, typename Out>
constexpr void convert_rows(const In (&x)[R][C], std::int32_t x_zero, std::int32_t y_zero, Out (&y)[R][C]) noexcept {
  constexpr output_requantizer scale{M.multiplier, M.shift, 0};
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c)
      y[r][c] = saturate_to<Out>(scale.scaled(std::int32_t{x[r][c]} - x_zero) + y_zero);
  }
}

/// a b as an int64: one `smlal` where the core multiplies 32 x 32 into 64 bits; on Armv6-M (Cortex-M0, M0+), whose
/// 64-bit multiply is a library call, the int32 product (exact: at most 2^30) widened.
CTATTN_ALWAYS_INLINE constexpr std::int64_t wide_product(std::int16_t a, std::int16_t b) noexcept {
#if defined(__ARM_ARCH_6M__)
  return std::int32_t{a} * std::int32_t{b};
#else
  return std::int64_t{a} * b;
#endif
}

/// The int64 sums of two rows x0 and x1 against one row y, K terms each: `int16_product_transposed`'s run-time step.
// Rationale: a function of its own, as the int8 kernels' `scalar_tile_sums`: inlined into the loops over rows, GCC 12
// -O2 kept neither pointer in a register on the Cortex-M3 (14 instructions per 2 terms, not 7).
template <std::size_t K>
[[gnu::noinline]] void int16_pair_sums(const std::int16_t* x0, const std::int16_t* x1, const std::int16_t* y,
                                       std::int64_t (&s)[2]) noexcept {
  std::int64_t s0 = 0, s1 = 0;
  for (const std::int16_t* const end = y + K; y != end; ++x0, ++x1, ++y) {
    const std::int64_t v = *y;
    s0 += std::int64_t{*x0} * v;
    s1 += std::int64_t{*x1} * v;
  }
  s[0] = s0;
  s[1] = s1;
}

/// out[i][j] = requantize_int64(sum_k a[i][k] b[j][k], m): TFLite's int16 BATCH_MATMUL, b given by its rows (b^T's
/// columns). The sum is exact in int64 for K < 2^17.
template <std::size_t M, std::size_t K, std::size_t N, typename Ops = int16_product_ops>
constexpr void int16_product_transposed(const std::int16_t (&a)[M][K], const std::int16_t (&b)[N][K],
                                        math::quantized_multiplier m, std::int16_t (&out)[M][N]) noexcept {
  if constexpr (declared_ops<Ops, int16_ops_defaults>::has_product_transposed) {
    if (!std::is_constant_evaluated()) {
      Ops::product_transposed(a, b, m, out);
      return;
    }
  }
  const int64_requantizer q{m};
#if !defined(__ARM_ARCH_6M__)
  // Rationale: at run time, where the core has the registers for it (not Armv6-M's eight low ones), two rows of a
  // against each row of b: each of b's terms loaded once for both rows, 3 loads and 2 multiply-adds (`smlal` on
  // Armv7-M) per 2 terms rather than 4 loads. The sums are the loop's below: the same bits.
  if (!std::is_constant_evaluated()) {
    std::size_t i = 0;
    for (; i + 2 <= M; i += 2) {
      for (std::size_t j = 0; j < N; ++j) {
        std::int64_t s[2];
        int16_pair_sums<K>(a[i], a[i + 1], b[j], s);
        out[i][j] = q(s[0]);
        out[i + 1][j] = q(s[1]);
      }
    }
    if constexpr (M % 2 == 1) {
      for (std::size_t j = 0; j < N; ++j) {
        std::int64_t s0 = 0;
        for (std::size_t k = 0; k < K; ++k) s0 += std::int64_t{a[M - 1][k]} * b[j][k];
        out[M - 1][j] = q(s0);
      }
    }
    return;
  }
#endif
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      std::int64_t sum = 0;
      for (std::size_t k = 0; k < K; ++k) sum += wide_product(a[i][k], b[j][k]);
      out[i][j] = q(sum);
    }
  }
}

/// The R x C outputs of rows of x (XS apart) and channels c0.. of w (WS apart) of the 16x8 FULLY_CONNECTED: the
/// tile's int32 sums over chunks of 256 terms added into int64 with the bias, each requantized.
template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R, std::size_t C, std::size_t MC>
CTATTN_ALWAYS_INLINE void int16_fully_connected_tile(const std::int16_t* x, const std::int8_t* w,
                                                     const std::int64_t* bias,
                                                     const math::quantized_multiplier* multipliers, std::size_t c0,
                                                     std::int16_t* y) noexcept {
  constexpr std::size_t chunk = int16_exact_terms;
  constexpr std::size_t rest = K % chunk;
  std::int64_t total[R][C];
#pragma GCC unroll 4
  for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) total[r][c] = bias[c0 + c];
  }
  // The int8 kernels' tile sums (kernels/int8.hpp) on int16 rows: a chunk's sums, within 2^30, are exact in 32 bits.
  std::uint32_t part[R][C];
  const auto add = [&] {
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (std::size_t c = 0; c < C; ++c) total[r][c] += static_cast<std::int32_t>(part[r][c]);
    }
  };
  for (std::size_t k0 = 0; k0 + chunk <= K; k0 += chunk) {
    scalar_tile_sums<chunk, XS, WS, R, C>(x + k0, w + c0 * WS + k0, part);
    add();
  }
  if constexpr (rest != 0) {
    scalar_tile_sums<rest, XS, WS, R, C>(x + (K - rest), w + c0 * WS + (K - rest), part);
    add();
  }
#pragma GCC unroll 4
  for (std::size_t c = 0; c < C; ++c) {
    const int64_requantizer requantize{multipliers[MC == 1 ? 0 : c0 + c]};
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) y[r * YS + c0 + c] = requantize(total[r][c]);
  }
}

/// y[i][n] = requantize_int64(sum_k x[i][k] w[n][k] + bias[n], multipliers[n]): TFLite's 16x8 FULLY_CONNECTED with
/// an int64 bias (the converter's default for 16x8), per channel (MC = N) or per tensor (one multiplier, MC = 1).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC, typename Ops = int16_product_ops>
  requires(MC == N || MC == 1)
constexpr void int16_fully_connected(const std::int16_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                     const std::int64_t (&bias)[N], const math::quantized_multiplier (&multipliers)[MC],
                                     std::int16_t (&y)[M][N]) noexcept {
  using declared = declared_ops<Ops, int16_ops_defaults>;
  if constexpr (declared::has_fully_connected && declared::template takes<K>) {
    if (!std::is_constant_evaluated()) {
      Ops::fully_connected(x, w, bias, multipliers, y);
      return;
    }
  }
#if !defined(__ARM_ARCH_6M__)
  // Rationale: at run time, where the core has the registers for it (not Armv6-M's eight low ones), 2 rows x 2
  // channels a step: each input read once for two channels and each weight once for two rows, 4 multiply-adds per 4
  // loads rather than per 8. The sums are the loop's below: the same bits.
  if (!std::is_constant_evaluated()) {
    constexpr std::size_t whole = N - N % 2;
    for (std::size_t n = 0; n < whole; n += 2) {
      std::size_t i = 0;
#pragma GCC unroll 1
      for (; i + 2 <= M; i += 2)
        int16_fully_connected_tile<K, K, K, N, 2, 2, MC>(x[i], w[0], bias, multipliers, n, y[i]);
      for (; i < M; ++i) int16_fully_connected_tile<K, K, K, N, 1, 2, MC>(x[i], w[0], bias, multipliers, n, y[i]);
    }
    for (std::size_t n = whole; n < N; ++n) {
      for (std::size_t i = 0; i < M; ++i)
        int16_fully_connected_tile<K, K, K, N, 1, 1, MC>(x[i], w[0], bias, multipliers, n, y[i]);
    }
    return;
  }
#endif
  // Rationale: the sum in int32 over chunks of 256 terms, each product at most 2^15 x 2^7 in magnitude, so a chunk's
  // sum stays within 2^30; then into the int64 sum: one `mla` a term (against a multiply and a 64-bit add), the same
  // bits.
  constexpr std::size_t chunk = int16_exact_terms;
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t n = 0; n < N; ++n) {
      std::int64_t sum = bias[n];
      for (std::size_t k0 = 0; k0 < K; k0 += chunk) {
        const std::size_t end = K - k0 < chunk ? K : k0 + chunk;
        std::int32_t part = 0;
        for (std::size_t k = k0; k < end; ++k) part += std::int32_t{x[i][k]} * std::int32_t{w[n][k]};
        sum += part;
      }
      y[i][n] = requantize_int64(sum, multipliers[MC == 1 ? 0 : n]);
    }
  }
}

/// out = clamp(mbqm(mbqm(a 2^15, A) + mbqm(b 2^15, B), Out)): TFLite's int16 ADD (its general path: zero points 0,
/// left shift 15, each multiplier below 1).
template <math::quantized_multiplier A, math::quantized_multiplier B, math::quantized_multiplier Out, std::size_t R,
          std::size_t C, typename Ops = int16_product_ops>
constexpr void int16_add_rows(const std::int16_t (&a)[R][C], const std::int16_t (&b)[R][C],
                              std::int16_t (&out)[R][C]) noexcept {
  if constexpr (declared_ops<Ops, int16_ops_defaults>::has_add) {
    if constexpr (Ops::add_takes(A, B, Out)) {
      if (!std::is_constant_evaluated()) {
        Ops::template add<A, B, Out>(&a[0][0], &b[0][0], &out[0][0], R * C);
        return;
      }
    }
  }
  constexpr output_requantizer scale_a{A.multiplier, A.shift, 0};
  constexpr output_requantizer scale_b{B.multiplier, B.shift, 0};
  constexpr output_requantizer scale_out{Out.multiplier, Out.shift, 0};
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      const std::int32_t sum =
          scale_a.scaled(std::int32_t{a[r][c]} * (1 << 15)) + scale_b.scaled(std::int32_t{b[r][c]} * (1 << 15));
      out[r][c] = saturate_to<std::int16_t>(scale_out.scaled(sum));
    }
  }
}

/// out = clamp(mbqm(a b, M)): TFLite's int16 MUL (zero points 0; the product at most 2^30 in magnitude).
template <math::quantized_multiplier M, std::size_t R, std::size_t C, typename Ops = int16_product_ops>
constexpr void int16_multiply_rows(const std::int16_t (&a)[R][C], const std::int16_t (&b)[R][C],
                                   std::int16_t (&out)[R][C]) noexcept {
  if constexpr (declared_ops<Ops, int16_ops_defaults>::has_multiply) {
    if constexpr (Ops::multiply_takes(M)) {
      if (!std::is_constant_evaluated()) {
        Ops::template multiply<M>(&a[0][0], &b[0][0], &out[0][0], R * C);
        return;
      }
    }
  }
  constexpr output_requantizer scale{M.multiplier, M.shift, 0};
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c)
      out[r][c] = saturate_to<std::int16_t>(scale.scaled(std::int32_t{a[r][c]} * b[r][c]));
  }
}

/// A 513-entry table read at an int16 v, given its middle entry (`table + 256`): entry 256 + floor(v / 128), plus the
/// slope to the next entry times v's low 7 bits, rounded (floor((slope x low + 64) / 128)): TFLite's LUTLookup, in
/// int32.
// Rationale: from the middle entry, floor(v / 128) indexes it as it is (no 256 to add per element), and the result
// stays an int32 until it is stored: the softmax sums it, and its narrowing costs an instruction (`sxth`) per element.
CTATTN_ALWAYS_INLINE constexpr std::int32_t int16_table_read(std::int32_t v, const std::int16_t* middle) noexcept {
  // Rationale: C++20 defines >> of a negative value as the floor and & on two's complement, as TFLite assumes.
  const std::int32_t index = v >> 7;
  const std::int32_t low = v & 0x7F;
  const std::int32_t at = middle[index];
  // Rationale: the slope in int32, where TFLite narrows it to int16: the same bits for every table whose neighbouring
  // entries differ by less than 2^15 (the softmax's do), and an interpolation between the two entries for an
  // activation's table whose entries jump further. floor((slope x low + 64) / 128) lies between 0 and the slope, so
  // the result lies between the two entries.
  const std::int32_t slope = middle[index + 1] - at;
  return at + ((slope * low + 64) >> 7);
}

/// `int16_table_read` from the table itself: an int16 activation's element.
CTATTN_ALWAYS_INLINE constexpr std::int16_t int16_table_lookup(std::int16_t v,
                                                               const std::int16_t (&table)[513]) noexcept {
  return static_cast<std::int16_t>(int16_table_read(v, table + 256));
}

/// Each element of x read from a 513-entry table with interpolation (`int16_table_lookup`): an int16 activation
/// (quantized/activation.hpp).
template <std::size_t R, std::size_t C>
constexpr void int16_lookup_rows(const std::int16_t (&x)[R][C], std::int16_t (&y)[R][C],
                                 const std::int16_t (&table)[513]) noexcept {
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) y[r][c] = int16_table_lookup(x[r][c], table);
  }
}

/// The int16 softmax of x[0, n) into y, TFLite's reference SoftmaxInt16 step by step: per element, (x - max) times
/// the input multiplier (beta s_in over 10 / 65535: [-10, 0] spread over the int16 range) looked up in e^x's table;
/// the sum's leading bits looked up in 1 / (1 + x)'s; each e^x times that reciprocal, shifted back by the sum's
/// magnitude, clamped to [0, 32767] (scale 1/32768).
// Rationale: the input multiplier a template argument and the function not inlined into the loop over rows: there
// the loop's own values took the registers the row's loop needs, and GCC kept the row's largest value, the multiplier
// and the table's address on the stack (Cortex-M4F); here each is a register or a constant.
template <math::quantized_multiplier Input, typename Ops = int16_product_ops>
[[gnu::noinline]] constexpr void int16_softmax_row(const std::int16_t* x, std::int16_t* y, std::size_t n) noexcept {
  const auto loop_max = [&] {
    std::int16_t largest = std::numeric_limits<std::int16_t>::min();
    for (std::size_t c = 0; c < n; ++c) largest = x[c] > largest ? x[c] : largest;
    return largest;
  };
  std::int16_t largest = 0;
  if constexpr (declared_ops<Ops, int16_ops_defaults>::has_row_max) {
    largest = std::is_constant_evaluated() ? loop_max() : Ops::row_max(x, n);
  } else {
    largest = loop_max();
  }
  constexpr output_requantizer scale{Input.multiplier, Input.shift, 0};
  const std::int16_t* exp_middle = int16_softmax_tables::exp + 256;
  std::int32_t sum = 0;
  // Rationale: the loop over pointers that advance to an end, so that it keeps no count besides them.
  std::int16_t* out = y;
  for (const std::int16_t* in = x; in != x + n; ++in, ++out) {
    const std::int32_t scaled = scale.scaled(std::int32_t{*in} - largest);
    const std::int32_t e = int16_table_read(saturate_to<std::int16_t>(scaled + 32767), exp_middle);
    *out = static_cast<std::int16_t>(e);
    sum += e;
  }
  // sum >= 32762 (the largest element's entry), so 1 <= headroom <= 17.
  const int headroom = std::countl_zero(static_cast<std::uint32_t>(sum));
  const auto shifted = static_cast<std::int32_t>(((std::int64_t{sum} << (headroom - 1)) + (1 << 13)) >> 14);
  const std::int16_t reciprocal = int16_table_lookup(saturate_to<std::int16_t>(shifted - (1 << 15) - (1 << 16)),
                                                     int16_softmax_tables::one_over_one_plus_x);
  // Rationale: each e^x entry and the reciprocal lie in [0, 32767], so their product and the rounding term (at most
  // 2^29) fit an int32: TFLite's int64 product, in one `mul`.
  const int right = 31 - headroom;
  const std::int32_t rounding = std::int32_t{1} << (right - 1);
  // Rationale: the product >= 0, so only 32767 bounds it, as TFLite clamps it. Where the core saturates, one `ssat`
  // (which clamps both sides) and the loop over a pointer to an end (one instruction an element fewer on the M4F);
  // elsewhere the one-sided compare and the loop by index (on Armv6-M the pointer form spilled to the stack).
#if defined(__ARM_FEATURE_SAT)
  for (std::int16_t* at = y; at != y + n; ++at) {
    *at = saturate_to<std::int16_t>((std::int32_t{*at} * reciprocal + rounding) >> right);
  }
#else
  for (std::size_t c = 0; c < n; ++c) {
    const std::int32_t scaled = (std::int32_t{y[c]} * reciprocal + rounding) >> right;
    y[c] = static_cast<std::int16_t>(scaled > 32767 ? 32767 : scaled);
  }
#endif
}

/// The fractional bits of the int16 LayerNorm's output before its rounding (step 6 of quantized/norm.hpp's
/// rationale; the int8 LayerNorm keeps 16).
inline constexpr int int16_layer_norm_output_fraction_bits = 8;

/// The int16 LayerNorm of each row of x into y: the int8 LayerNorm's steps (quantized/norm.hpp's rationale) on int16
/// values of zero point 0, S1 and S2 summed in int64, the output A_j in 2^-8 steps before its rounding and clamped to
/// int16. With `RootMeanSquare`, RMSNorm: each row centred on 0 (S1 = 0, D = C S2).
// Rationale: one loop in int64 for constant evaluation and run time alike: the kernels to beat are the
// products, and a row's normalization costs a few multiplies an element against the C of each product around it.
template <bool RootMeanSquare = false, std::size_t R, std::size_t C>
constexpr void int16_layer_norm_rows(const std::int16_t (&x)[R][C], std::int16_t (&y)[R][C],
                                     const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                                     const std::int32_t (&bias)[C], std::int64_t epsilon,
                                     std::int32_t epsilon_shift) noexcept {
  constexpr auto c = static_cast<std::int64_t>(C);
  for (std::size_t r = 0; r < R; ++r) {
    std::int64_t s1 = 0;
    std::int64_t s2 = 0;
    for (std::size_t j = 0; j < C; ++j) {
      const std::int64_t v = x[r][j];
      s1 += v;
      s2 += v * v;
    }
    if constexpr (RootMeanSquare) s1 = 0;
    const int8_layer_norm_row row =
        int8_norm_row_from(int8_layer_norm_row{c, s1, 0, 37}, c * s2 - s1 * s1, epsilon, epsilon_shift);
    for (std::size_t j = 0; j < C; ++j) {
      const std::int32_t n = int8_layer_norm_normalized(x[r][j], row);
      const std::int64_t a = int8_layer_norm_scaled(n, multiplier[j], shift[j], bias[j]);
      const std::int64_t q = rounding_shift(a, int16_layer_norm_output_fraction_bits);
      y[r][j] = static_cast<std::int16_t>(q < -32768 ? -32768 : (q > 32767 ? 32767 : q));
    }
  }
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_INT16_HPP
