// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_INT8_HPP
#define CTATTN_KERNELS_INT8_HPP

/// \file
/// The int8 kernels, and the one place that decides how they compute. Their sums are integers, so every order
/// gives the same result: constant evaluation, the scalar loops and every backend agree bit for bit, and there is
/// no exact or fast arithmetic to choose (an int8 call takes no `ctattn::arithmetic`).
///
/// | kernel                                        | computes                                                  |
/// |-----------------------------------------------|-----------------------------------------------------------|
/// | `int8_dot_rows<KMax>(a, i, .., b, j0, .., k, n, out)` | out[j] = sum_t (a_i[t] - a_zero)(b_{j0+j}[t] - b_zero)|
/// | `requantize(c, multiplier, zero)`             | clamp(c times the multiplier, rounded, + zero): one value |
/// | `int8_window_product_requantized<M, K, N>(x, .., w, .., epilogue, y, ..)` | raw int8 products over windows, offset and requantized (docs/kernels.md) |
/// | `int8_product_requantized(x, w, epilogue, y)` | the same over whole arrays                                |
/// | `int8_fully_connected(x, w, start, multipliers, zero, y)` | a layer: the input zero point folded into start |
/// | `int8_window_product_zero_points<M, K, N>(..)`| (a - za)(b - zb)^T over windows, one multiplier           |
/// | `int8_column_starts<K, N>(..)`, `int8_window_product_from_starts<M, K, N>(..)` | the same in two steps, the first shared by products of one b |
/// | `int8_row_sum<K>(p)`                          | sum of K int8 values                                      |
/// | `int8_softmax_row<Method>(x, w, begin, end, table, visible)` | the int8 softmax of x[begin, end), `rounded_softmax` or `tflite_softmax` (quantized/softmax.hpp) |
/// | `int8_add_rows<..>(a, a_zero, b, b_zero, ..)` | TFLite's int8 ADD, element by element (quantized/add.hpp) |
/// | `int8_multiply_rows<..>(a, a_zero, b, b_zero, ..)` | TFLite's int8 MUL, element by element (quantized/hadamard.hpp) |
/// | `int8_add_row<..>(a, a_zero, b, b_zero, ..)`  | the same on one row (the int8 embedding's token and position rows) |
/// | `int8_lookup_rows(x, y, table)`               | y = table[x + 128] per element (quantized/activation.hpp) |
/// | `int8_first_largest(x, n)`                    | the index of the largest of x[0, n), the first of equal ones (greedy decoding) |
/// | `int8_rotate_heads<HeadDim, Interleaved>(row, heads, cos, sin, zero)` | RoPE of each head of one int8 row by Q15 cosines and sines (quantized/llama.hpp) |
/// | `requantize_values<M>(sums, zero, out, n)`    | `requantize` of n accumulators with one multiplier          |
/// | `int8_layer_norm_rows(x, y, ...)`             | LayerNorm (or RMSNorm) of each row in integers (quantized/norm.hpp) |
///
/// The element-wise kernels have one integer form on every target, but for Helium's own forms of ADD, MUL, the table
/// lookup, the requantized values and the rotation (the same bits).
/// The products go through `int8_window_product_requantized`, whose backends docs/kernels.md describes. How `int8_dot_rows` (the x86 and NEON
/// form of the products, and int8 attention over sliding windows) computes:
///   1. constant evaluation: the scalar loop;
///   2. run time: the build's int8 backend through kernels/detail/int8_simd.hpp, where the target has one:
///
/// | target macros                                            | backend      | file                      | terms per step |
/// |----------------------------------------------------------|--------------|---------------------------|----------------|
/// | `__AVX512BW__` and `__AVX512VNNI__`                      | avx512_vnni  | kernels/avx512_int8.hpp   | 64             |
/// | `__AVX512BW__`                                           | avx512       | kernels/avx512_int8.hpp   | 32             |
/// | `__AVX2__` and `__AVXVNNI__`                             | avx2_vnni    | kernels/avx2_int8.hpp     | 16 (layers: 32) |
/// | `__AVX2__`                                               | avx2         | kernels/avx2_int8.hpp     | 16             |
/// | AArch64 with dot product and `__ARM_FEATURE_MATMUL_INT8` | neon_i8mm    | kernels/neon_int8.hpp     | 16 (layers: `smmla`) |
/// | AArch64 with `__ARM_FEATURE_DOTPROD` (`+dotprod`)        | neon_dotprod | kernels/neon_int8.hpp     | 16             |
/// | `__aarch64__` and `__ARM_NEON`                           | neon         | kernels/neon_int8.hpp     | 8              |
/// | `__ARM_FEATURE_MVE` (Clang, or GCC 13 and later)         | helium       | kernels/helium_int8.hpp   | 8              |
/// | `__ARM_FEATURE_DSP` (Cortex-M4, M7, M33, M55 with GCC)   | arm_dsp      | kernels/arm_dsp_int8.hpp  | 4              |
/// | `__ARM_ARCH_6M__` (Cortex-M0, M0+: the products only)    | armv6m       | kernels/armv6m_int8.hpp   | 1 (assembly)   |
/// | `__riscv_vector` (RVV 1.0: the products only)            | rvv          | kernels/rvv_int8.hpp      | vl channels (16 at VLEN 128) |
/// | RV32 with the M extension (the products only)            | rv32im       | kernels/rv32im_int8.hpp   | 1 (4 x 4 tiles) |
/// | anything else (Cortex-M3, ...)                           | scalar       | this file                 | 1              |
///
/// These are the int8 table's rows (kernels/backend_rows.hpp), fastest first; each backend's file defines its row
/// where the target has its instructions, and `detail::int8_row` below is the first defined, chosen once. The
/// optional operations a backend may add (its own softmax, lookup, LayerNorm, product kernel, ...) are declared with
/// their defaults in kernels/detail/ops_defaults.hpp, and the kernels below read those declarations. Clang 14
/// does not enable the dot product with `-march=armv8.6-a+i8mm` (it defines `__ARM_FEATURE_MATMUL_INT8` alone and
/// rejects `vdotq_s32`): add `+dotprod` for the `neon_i8mm` row, else the build runs `neon`.
///
/// A layer's fully-connected product (`ctattn::qlinear`) has a third form where the build has a packed kernel
/// (AVX-512 VNNI, AVX-VNNI, AVX2, AArch64 `smmla` or `sdot`): its weights packed where the layer is made, read by
/// kernels/detail/int8_packed.hpp.
///
/// Example:
/// \code
///   const std::int8_t a[1][2]{{1, 2}}, b[1][2]{{3, 4}};   // b as rows of K
///   std::int8_t c[1][1]{};
///   constexpr ctattn::math::quantized_multiplier one_half{1 << 30, 0};
///   ctattn::detail::kernels::int8_product_transposed_requantized(a, b, 0, 0, one_half, 0, c);   // {{6}}: 11 / 2
/// \endcode

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/detail/config.hpp"
#include "ctattn/kernels/arm_dsp_int8.hpp"
#include "ctattn/kernels/armv6m_int8.hpp"
#include "ctattn/kernels/avx2_int8.hpp"
#include "ctattn/kernels/avx512_int8.hpp"
#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/constant.hpp"
#include "ctattn/kernels/detail/int8_packed.hpp"
#include "ctattn/kernels/detail/int8_requantize.hpp"
#include "ctattn/kernels/detail/int8_simd.hpp"
#include "ctattn/kernels/detail/int8_tiles.hpp"
#include "ctattn/kernels/detail/ops_defaults.hpp"
#include "ctattn/kernels/detail/target.hpp"
#include "ctattn/kernels/helium_int8.hpp"
#include "ctattn/kernels/neon_int8.hpp"
#include "ctattn/kernels/rv32im_int8.hpp"
#include "ctattn/kernels/rvv_int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/math/isqrt.hpp"

namespace ctattn {

namespace detail {
/// The int8 table's row this build runs: the first the target defines (kernels/backend_rows.hpp), chosen here once.
using int8_row = int8_backend<chosen_row<int8_backend_id, int8_backend>()>;

/// A row's int8 operations as declared (kernels/detail/ops_defaults.hpp): `Ops`, or the defaults for `void`.
template <typename Ops>
using int8_declared = declared_ops<Ops, int8_ops_defaults>;

/// The int8 dot-product operations of the backend this build targets (`void` when there is none).
using int8_ops = int8_row::ops;

/// The operations that run the layers' int8 products: `int8_ops`, or a backend's product-only kernel (Armv6-M's).
using int8_product_ops = int8_row::product_ops;

/// The operations of the packed int8 fully-connected kernel (kernels/detail/int8_packed.hpp) this build targets:
/// AVX-512 VNNI's, AVX-VNNI's, AArch64 `smmla`'s (i8mm) or `sdot`'s where the target has them, else AVX2's
/// `vpmaddwd` form on an x86 target with AVX2 (AVX-512 without VNNI included), else `void` (layers keep no packed
/// weights).
using int8_packed_ops = int8_row::packed_ops;
}  // namespace detail

/// The int8 backend of this build: "avx512_vnni", "avx512", "avx2_vnni", "avx2", "neon_i8mm", "neon_dotprod", "neon",
/// "helium", "arm_dsp", "armv6m", "rvv", "rv32im", or "scalar" when there is none.
///
/// Example: `static_assert(ctattn::int8_backend_name[0] != '\0');`
inline constexpr const char* int8_backend_name = detail::int8_row::name;

namespace detail::kernels {

/// sum + the terms (x[t] - x_zero)(y[t] - y_zero) for t = base + T, T the pack, those with t >= k left out: one
/// expression, which the constant evaluators run as one step.
template <bool Guarded, std::size_t... T>
constexpr std::int32_t folded_terms(std::int32_t sum, const std::int8_t* x, std::int32_t x_zero, const std::int8_t* y,
                                    std::int32_t y_zero, std::size_t base, std::size_t k,
                                    std::index_sequence<T...>) noexcept {
  if constexpr (Guarded) {
    return (sum + ... +
            (base + T < k ? (std::int32_t{x[base + T]} - x_zero) * (std::int32_t{y[base + T]} - y_zero) : 0));
  } else {
    return (sum + ... + ((std::int32_t{x[base + T]} - x_zero) * (std::int32_t{y[base + T]} - y_zero)));
  }
}

/// sum_t (x[t] - x_zero)(y[t] - y_zero) for t < k <= KMax, x and y pointing into one row each, in index order: one
/// fold of KMax terms when KMax <= 64; else folds of 64 terms (kernels/constant.hpp's chunk; Clang folds at most 256
/// operands), then of 8 for the rest.
template <std::size_t KMax>
constexpr std::int32_t folded_dot(const std::int8_t* x, std::int32_t x_zero, const std::int8_t* y, std::int32_t y_zero,
                                  std::size_t k) noexcept {
  if constexpr (KMax <= unrolled_chunk) {
    return folded_terms<true>(0, x, x_zero, y, y_zero, 0, k, std::make_index_sequence<KMax>{});
  } else {
    constexpr std::size_t rest_chunk = 8;
    std::int32_t sum = 0;
    std::size_t base = 0;
    for (; base + unrolled_chunk <= k; base += unrolled_chunk) {
      sum = folded_terms<false>(sum, x, x_zero, y, y_zero, base, k, std::make_index_sequence<unrolled_chunk>{});
    }
    for (; base < k; base += rest_chunk) {
      sum = folded_terms<true>(sum, x, x_zero, y, y_zero, base, k, std::make_index_sequence<rest_chunk>{});
    }
    return sum;
  }
}

/// sum + a[base + T] b[base + T] over the pack T: one expression, which the constant evaluators run as one step.
template <std::size_t K, std::size_t... T>
constexpr std::int32_t local_terms(std::int32_t sum, const std::int32_t (&a)[K], const std::int32_t (&b)[K],
                                   std::size_t base, std::index_sequence<T...>) noexcept {
  return (sum + ... + (a[base + T] * b[base + T]));
}

/// sum_t a[t] b[t] for t < K over two rows of the constant evaluation's own storage, in index order: one fold when
/// K <= 64, else folds of 64 terms (Clang folds at most 256 operands), then one of the K mod 64 left.
template <std::size_t K>
constexpr std::int32_t local_dot(const std::int32_t (&a)[K], const std::int32_t (&b)[K]) noexcept {
  if constexpr (K <= unrolled_chunk) {
    return local_terms(0, a, b, 0, std::make_index_sequence<K>{});
  } else {
    constexpr std::size_t whole = K / unrolled_chunk * unrolled_chunk;
    std::int32_t sum = 0;
    for (std::size_t base = 0; base < whole; base += unrolled_chunk) {
      sum = local_terms(sum, a, b, base, std::make_index_sequence<unrolled_chunk>{});
    }
    if constexpr (whole < K) sum = local_terms(sum, a, b, whole, std::make_index_sequence<K - whole>{});
    return sum;
  }
}

/// to[base + T] = from[row][column + base + T] over the pack T: one expression, one step of the constant evaluators.
template <std::size_t K, std::size_t R, std::size_t C, std::size_t... T>
constexpr void local_terms_copied(std::int32_t (&to)[K], const std::int8_t (&from)[R][C], std::size_t row,
                                  std::size_t column, std::size_t base, std::index_sequence<T...>) noexcept {
  ((to[base + T] = from[row][column + base + T]), ...);
}

/// to[t] = from[row][column + t] for t < K, in folds of 64 (Clang counts a loop's every iteration against its budget
/// of steps, a fold once; a loop per element here took the verified int8 sorter past Clang's default million).
template <std::size_t K, std::size_t R, std::size_t C>
constexpr void local_row(std::int32_t (&to)[K], const std::int8_t (&from)[R][C], std::size_t row,
                         std::size_t column) noexcept {
  constexpr std::size_t whole = K / unrolled_chunk * unrolled_chunk;
  for (std::size_t base = 0; base < whole; base += unrolled_chunk) {
    local_terms_copied(to, from, row, column, base, std::make_index_sequence<unrolled_chunk>{});
  }
  if constexpr (whole < K) local_terms_copied(to, from, row, column, whole, std::make_index_sequence<K - whole>{});
}

/// The scalar form of `int8_dot_rows` at run time: out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero).
// Rationale: the loop runs to an end pointer with the zero point in a local, which GCC's -Os keeps in registers
// (with the parameters it reloaded two of them from the stack in every iteration, 10 instructions per term).
inline void scalar_dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                            std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
  const std::int8_t* const a_end = a + k;
  const std::int32_t zero = b_zero;
  for (std::int32_t* const out_end = out + n; out != out_end; ++out, b += b_stride) {
    std::int32_t sum = 0;
    const std::int8_t* y = b;
    for (const std::int8_t* x = a; x != a_end; ++x, ++y) sum += (std::int32_t{*x} - a_zero) * (std::int32_t{*y} - zero);
    *out = sum;
  }
}

/// out[j] = sum_t (a[a_row][a_column + t] - a_zero)(b[b_row + j][b_column + t] - b_zero) for j < n and t < k,
/// in int32: one row of a against n rows of b, both read along a window of k <= KMax columns (the rules keep k at
/// most 33,025, so no sum overflows). Zero points are int8 values.
// Rationale: the operands are whole arrays with indices, not pointers, because constant evaluation does not let a
// pointer into one row of a two-dimensional array walk on into the next. Constant-evaluated, each row's sum is
// folds of 64 terms (`folded_dot`): the evaluators count a loop's every iteration, and the verified model's four
// int8 forward passes in plain loops exceed Clang's default budget of a million steps.
// Rationale: GCC 12 at -O3, after inlining int8 attention, reports a row pointer formed here as reaching outside
// another array of the caller (-Warray-bounds, an error under -Werror); every index is within its own array (the
// sanitizer runs check it), so the warning is switched off for this function alone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template <std::size_t KMax, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB>
constexpr void int8_dot_rows(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                             std::int32_t a_zero, const std::int8_t (&b)[RB][CB], std::size_t b_row,
                             std::size_t b_column, std::int32_t b_zero, std::size_t k, std::size_t n,
                             std::int32_t* out) noexcept {
  if (n == 0) return;
  if (std::is_constant_evaluated()) {
    expects(k <= KMax);
    for (std::size_t j = 0; j < n; ++j) {
      out[j] = folded_dot<KMax>(&a[a_row][a_column], a_zero, &b[b_row + j][b_column], b_zero, k);
    }
    return;
  }
  const std::int8_t* const row = a[a_row] + a_column;
  const std::int8_t* const rows = b[b_row] + b_column;
  if constexpr (!std::is_void_v<int8_ops>) {
    if constexpr (int8_simd::fixed_dot_rows_fit<int8_ops, KMax>) {
      if (k == KMax) {
        int8_simd::fixed_group_dot_rows<int8_ops, KMax, 1>(row, a_zero, rows, CB, b_zero, n, out, 0);
        return;
      }
    }
    int8_simd::dot_rows<int8_ops>(row, a_zero, rows, CB, b_zero, k, n, out);
  } else {
    scalar_dot_rows(row, a_zero, rows, CB, b_zero, k, n, out);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// out[i][j] = sum_t (a_r[c + i DK + t] - a_zero)(b_{j0+j}[t + b_column] - b_zero) for i < G, j < n, t < DK (r, c:
/// `a_row`, `a_column`; j0: `b_row`): `int8_dot_rows` for G consecutive slices of one row of a, the scores of the G
/// query heads that share one key head in a decoding step (grouped-query attention). At run time, on a
/// microcontroller backend whose steps hold the G slices (`fixed_group_dot_rows_fit`: Helium's and the Cortex-M
/// DSP's for heads of 8 and 16 values, G up to 4 and 2), one pass over the keys for all of them; else `int8_dot_rows`
/// for each. The same sums.
///
/// Example: `kernels::int8_group_dot_rows<8, 2>(q.elements, 0, 16, q_zero, k.elements, 0, 8, k_zero, seen, sums);`
template <std::size_t DK, std::size_t G, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB, std::size_t S>
constexpr void int8_group_dot_rows(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                                   std::int32_t a_zero, const std::int8_t (&b)[RB][CB], std::size_t b_row,
                                   std::size_t b_column, std::int32_t b_zero, std::size_t n,
                                   std::int32_t (&out)[G][S]) noexcept {
  if constexpr (G > 1 && !std::is_void_v<int8_ops>) {
    if constexpr (int8_simd::fixed_group_dot_rows_fit<int8_ops, DK, G>) {
      if (!std::is_constant_evaluated()) {
        if (n != 0) {
          int8_simd::fixed_group_dot_rows<int8_ops, DK, G>(a[a_row] + a_column, a_zero, b[b_row] + b_column, CB, b_zero,
                                                           n, out[0], S);
        }
        return;
      }
    }
  }
  for (std::size_t i = 0; i < G; ++i) {
    int8_dot_rows<DK>(a, a_row, a_column + i * DK, a_zero, b, b_row, b_column, b_zero, DK, n, out[i]);
  }
}

/// One int32 accumulator to int8: multiply_by_quantized_multiplier, plus the output's zero point, clamped.
// Rationale: at run time on a core with `smmlar` (the DSP extension) or RV32's `mulh`, `output_requantizer`'s form,
// the same bits for every multiplier in [0, 2^31): the element-wise int8 operations (a gate's product, a residual's
// requantization) took 26 instructions an element on a M7 in the int64 form, 10 in this one.
CTATTN_ALWAYS_INLINE constexpr std::int8_t requantize(std::int32_t accumulator, math::quantized_multiplier multiplier,
                                                      std::int32_t zero) noexcept {
#if defined(__ARM_FEATURE_DSP) || CTATTN_DETAIL_RV32_MUL
  if (!std::is_constant_evaluated() && multiplier.multiplier >= 0) {
    return output_requantizer{multiplier.multiplier, multiplier.shift, zero}(accumulator);
  }
#endif
  std::int32_t v = math::multiply_by_quantized_multiplier(accumulator, multiplier);
  // Rationale: the zero point is added after clamping v to what cannot overflow (|v| may be near 2^31).
  v = v < -256 ? -256 : (v > 255 ? 255 : v);  // 255 + zero >= 127 and -256 + zero <= -128: the same clamped result
  v += zero;
  return static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

/// `requantize` of n int32 accumulators with one multiplier M into out: at run time the backend's
/// `Ops::requantize_values` where it has one for M (Helium's, 4 lanes), else one value at a time. The same bits for
/// an int8 zero point (in [-128, 127], as every int8 quantization's is).
///
/// | operand | what                           |
/// |---------|--------------------------------|
/// | `sums`  | n int32 accumulators           |
/// | `out`   | n int8 values, in Q(zero)      |
///
/// Example: `kernels::requantize_values<multiplier>(sums, 3, scores, 12);   // scores[j] = requantize(sums[j], ..)`
// Rationale: one query's scores and outputs in int8 attention (a decoding step) are short rows requantized with one
// multiplier; on Helium the vector form takes 2 instructions a value against 10.
template <math::quantized_multiplier M, typename Ops = int8_ops>
constexpr void requantize_values(const std::int32_t* sums, std::int32_t zero, std::int8_t* out,
                                 std::size_t n) noexcept {
  if constexpr (int8_declared<Ops>::has_requantize_values) {
    if constexpr (Ops::requantize_values_take(M)) {
      if (!std::is_constant_evaluated()) {
        Ops::template requantize_values<M>(sums, zero, out, n);
        return;
      }
    }
  }
  for (std::size_t j = 0; j < n; ++j) out[j] = requantize(sums[j], M, zero);
}

/// The stack bytes an int8 product of M x K by N x K (`int8_window_product_requantized`) takes beyond its locals, on
/// any backend: the largest of the x86 and NEON form's N int32 sums, the packed kernel's staged rows (a tile's:
/// `int8_packed::most_staged_bytes`) with, from `int8_packed::runtime_packing_rows` rows on, the panel of b it packs
/// (`int8_packed::most_runtime_panel_bytes`), and the Cortex-M DSP form's widened block.
///
/// Example: `static_assert(ctattn::detail::kernels::int8_product_stack_bytes<6, 64, 32> == 6 * 64 * 2);`
template <std::size_t M, std::size_t K, std::size_t N>
inline constexpr std::size_t int8_product_stack_bytes = [] {
  const std::size_t sums = N * sizeof(std::int32_t);
  const std::size_t panel = M >= int8_packed::runtime_packing_rows ? int8_packed::most_runtime_panel_bytes<K, N> : 0;
  const std::size_t staged = int8_packed::most_staged_bytes<M, K> + panel;
  const std::size_t widened = arm_dsp_product_scratch_bytes<M, K>;
  const std::size_t most = sums > staged ? sums : staged;
  return most > widened ? most : widened;
}();

/// How many queries int8 attention (quantized/attention.hpp) scores and weighs at a time: its scores and weights
/// take 2 x rows x n_kv bytes of stack. On a microcontroller (`microcontroller_target`), 6 (one of the DSP kernel's blocks of rows, three of
/// Helium's tiles of 2): KWT-Tiny's 50 x 50 attention then takes 600 bytes for them rather than 5,000, at the same
/// instructions per inference (the products' column starts are made once per head). Elsewhere 64, the tiles of the
/// desktop kernels being larger and memory plentiful.
///
/// Example: `static_assert(ctattn::detail::kernels::int8_attention_query_rows >= 6);`
inline constexpr std::size_t int8_attention_query_rows = microcontroller_target ? 6 : 64;

/// How many rows an int8 encoder layer's feed-forward block (quantized/transformer.hpp) runs at a time: its hidden
/// layer and activation then take 2 x rows x hidden bytes of stack rather than 2 n hidden. On a microcontroller, 6 (one
/// of the DSP kernel's blocks of rows); elsewhere every row at once, so that a packed kernel packs its weights once.
///
/// Example: `static_assert(ctattn::detail::kernels::int8_feed_forward_rows >= 6);`
inline constexpr std::size_t int8_feed_forward_rows = microcontroller_target ? 6 : std::size_t(-1);

/// Calls `f(std::integral_constant<std::size_t, M>{}, first)` for blocks of Rows rows covering N rows in order
/// (M = Rows), then the last N % Rows rows when Rows does not divide N (M = N % Rows): how int8 attention takes its
/// queries and the encoder layer its feed-forward rows. Rows >= 1.
///
/// Example: `for_each_row_block<50, 6>([&](auto m, std::size_t first) { run<decltype(m)::value>(first); });`
template <std::size_t N, std::size_t Rows, typename F>
CTATTN_ALWAYS_INLINE constexpr void for_each_row_block(F&& f) {
  static_assert(Rows >= 1, "for_each_row_block: blocks of at least one row");
  std::size_t first = 0;
  for (; first + Rows <= N; first += Rows) f(std::integral_constant<std::size_t, Rows>{}, first);
  if constexpr (N % Rows != 0) f(std::integral_constant<std::size_t, N % Rows>{}, first);
}

/// `int8_product_requantized` at run time with the backend Ops (`int8_ops`; a parameter so that the branches not
/// taken are not compiled).
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
          typename Epilogue>
void run_product_requantized(const std::int8_t* x, const std::int8_t* w, const Epilogue& e, std::int8_t* y) noexcept {
  if constexpr (int8_declared<Ops>::has_product_requantized) {
    Ops::template product_requantized<M, K, N, XS, WS, YS>(x, w, e, y);
  } else if constexpr (!std::is_void_v<Ops>) {
    if constexpr (!std::is_void_v<int8_packed_ops> && !Epilogue::per_channel &&
                  M >= int8_packed::runtime_packing_rows) {
      // w packed a panel at a time for the layers' tiles (kernels/detail/int8_packed.hpp), where the packed
      // requantization of the product's multiplier is exact; else the dot products below.
      if (int8_packed::runtime_product<int8_packed_ops, M, K, N, XS, WS, YS>(x, w, e, y)) return;
    }
    if constexpr (K < int8_simd::narrowest_step<Ops>()) {
      // Rationale: no whole step of the backend's: its kernel would only add the loop's terms through its passes
      // and calls (an int8 head of width 8, measured on Zen 4); the scalar tiles unroll K.
      scalar_product_requantized<M, K, N, XS, WS, YS>(x, w, e, y);
    } else {
      std::int32_t sums[N];
      for (std::size_t r = 0; r < M; ++r) {
        int8_simd::dot_rows<Ops>(x + r * XS, 0, w, WS, 0, K, N, sums);
        if constexpr (Ops::has_requantize_row) {
          Ops::requantize_row(e, r, sums, y + r * YS, N);  // x86: 8 outputs at a time
        } else {
          for (std::size_t c = 0; c < N; ++c) y[r * YS + c] = e(r, c, sums[c]);
        }
      }
    }
  } else {
    // Rationale: one row (a decoding step's) in tiles of 1 x 4: each input loaded once for 4 channels, 5 loads for 4
    // multiply-adds where a 2 x 2 tile of one row loads 3 for 2 (the Cortex-M3's products of the tiny llama's step,
    // fc_1x64x172 and fc_1x172x64: 0.86 and 0.87 of CMSIS-NN's instructions at -O2, against 1.00 and 1.02).
    scalar_product_requantized<M, K, N, XS, WS, YS, 2, (M == 1 ? 4 : 2)>(x, w, e, y);
  }
}

/// `int8_window_product_requantized` in constant evaluation: with GCC, w's columns as int32 vector lanes and each
/// output row a sequence of row updates (`lanes_axpy`, kernels/constant.hpp), 0.40 of the folds' instructions
/// per multiply-add; with other compilers the operands copied into local rows of int32 (`local_row`), each output a
/// `local_dot` of two of them. The sums are integers, exact in any order, so both forms give the same bits.
// Rationale: the operands copied into local rows of int32 first (O((M + N) K) steps against the M N K terms), so that
// every term of a fold reads the evaluation's own storage at a literal offset: against folds reading int8 through
// pointers with zero points, GCC 12 took 15 s and 0.36 GB instead of 36 s and 1.4 GB for a KWT-1 int8 encoder layer
// (benchmarks/compile_time_int8.sh). A function of its own, never called at run time, so that its M x K locals are
// in no run-time frame (an unoptimized build reserves a block's locals even where the block cannot run).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RX, std::size_t CX, std::size_t RW, std::size_t CW,
          std::size_t RY, std::size_t CY, bool PerChannel, bool RowStarts>
constexpr void constant_window_product(const std::int8_t (&x)[RX][CX], std::size_t x_row, std::size_t x_column,
                                       const std::int8_t (&w)[RW][CW], std::size_t w_row, std::size_t w_column,
                                       const int8_epilogue<PerChannel, RowStarts>& e, std::int8_t (&y)[RY][CY],
                                       std::size_t y_row, std::size_t y_column) noexcept {
  if constexpr (evaluates_lanes<std::int32_t>) {
    // GCC: w's columns as lane rows (lane c of row t is w[w_row + c][w_column + t]), each output row the row
    // updates sum += x[r][t] w_t over t (integer sums: exact in any order).
    lane_row<std::int32_t, N> columns[K]{};
    for (std::size_t t = 0; t < K; ++t) {
      load_column(columns[t], w, w_row, w_column + t);
    }
    for (std::size_t r = 0; r < M; ++r) {
      lane_row<std::int32_t, N> sum{};
      for (std::size_t t = 0; t < K; ++t) lanes_axpy(sum, std::int32_t{x[x_row + r][x_column + t]}, columns[t]);
      for (std::size_t c = 0; c < N; ++c) y[y_row + r][y_column + c] = e(r, c, lane(sum, c));
    }
    return;
  }
  // Rationale: left uninitialized (C++20 allows it in constant evaluation): `local_row` writes every entry first.
  std::int32_t rows[M][K];
  for (std::size_t r = 0; r < M; ++r) local_row(rows[r], x, x_row + r, x_column);
  for (std::size_t c = 0; c < N; ++c) {
    std::int32_t channel[K];
    local_row(channel, w, w_row + c, w_column);
    for (std::size_t r = 0; r < M; ++r) y[y_row + r][y_column + c] = e(r, c, local_dot(rows[r], channel));
  }
}

/// The int8 product of raw int8 operands over windows, each output offset and requantized by the epilogue `e`
/// (`int8_epilogue`): for r < M, c < N, y[y_row + r][y_column + c] = requantize(sum_{t < K} x[x_row + r][x_column + t]
/// w[w_row + c][w_column + t] + column_start[c] + row_start[r]), the sums modulo 2^32 (exact whenever the true sum
/// fits an int32). Zero points reach it as those starts: a layer's input zero point folded into its bias by the
/// compiler, a product's (x - zx)(w - zw) as sum x w - zw sum x - zx sum w + K zx zw. Each multiplier in [0, 2^31)
/// (`math::quantize_multiplier`'s).
///
/// | operand | shape                                     |
/// |---------|-------------------------------------------|
/// | `x`     | RX x CX int8, read M x K from (x_row, x_column) |
/// | `w`     | RW x CW int8, read N x K from (w_row, w_column) (out x in) |
/// | `y`     | RY x CY int8, written M x N from (y_row, y_column) |
///
/// How it computes: constant evaluation, `constant_window_product` (local rows, folds); at run time the backend's
/// own kernel (`helium`, `arm_dsp`), else `int8_dot_rows`'s backend with zero points 0 (x86, NEON), else Armv6-M's
/// (`armv6m`), RVV's (`rvv`), RV32IM's (`rv32im`) or the scalar kernel.
// Rationale: whole arrays with indices, not pointers, for the reason `int8_dot_rows` gives (constant evaluation).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RX, std::size_t CX, std::size_t RW, std::size_t CW,
          std::size_t RY, std::size_t CY, bool PerChannel, bool RowStarts>
constexpr void int8_window_product_requantized(const std::int8_t (&x)[RX][CX], std::size_t x_row, std::size_t x_column,
                                               const std::int8_t (&w)[RW][CW], std::size_t w_row, std::size_t w_column,
                                               const int8_epilogue<PerChannel, RowStarts>& e, std::int8_t (&y)[RY][CY],
                                               std::size_t y_row, std::size_t y_column) noexcept {
  if (std::is_constant_evaluated()) {
    constant_window_product<M, K, N>(x, x_row, x_column, w, w_row, w_column, e, y, y_row, y_column);
    return;
  }
  run_product_requantized<int8_product_ops, M, K, N, CX, CW, CY>(&x[x_row][x_column], &w[w_row][w_column], e,
                                                                 &y[y_row][y_column]);
}

/// `int8_window_product_requantized` over whole arrays: x M x K, w N x K, y M x N.
template <std::size_t M, std::size_t K, std::size_t N, bool PerChannel, bool RowStarts>
constexpr void int8_product_requantized(const std::int8_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                        const int8_epilogue<PerChannel, RowStarts>& e,
                                        std::int8_t (&y)[M][N]) noexcept {
  int8_window_product_requantized<M, K, N>(x, 0, 0, w, 0, 0, e, y, 0, 0);
}

/// The int8 fully-connected product with the input's zero point folded into `start` (by the compiler, for a
/// layer's constant weights): y[r][c] = requantize(start[c] + sum_t x[r][t] w[c][t], multipliers[c], zero), so
/// that start = bias - z_in sum_t w[c][t] gives TFLite's sum_t (x - z_in) w + bias (`int8_product_requantized`).
/// One multiplier (MC = 1) serves every channel: a layer quantized per tensor.
///
/// | operand       | shape                   |
/// |---------------|-------------------------|
/// | `x`           | M x K int8              |
/// | `w`           | N x K int8 (out x in)   |
/// | `start`       | N int32                 |
/// | `multipliers` | MC: N (per channel) or 1 (per tensor) |
/// | `y`           | M x N int8              |
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  requires(MC == N || MC == 1)
constexpr void int8_fully_connected(const std::int8_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                    const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                                    std::int32_t zero, std::int8_t (&y)[M][N]) noexcept {
  int8_product_requantized(x, w, int8_epilogue<(MC > 1)>{start, nullptr, multipliers, zero}, y);
}

/// What an N x K int8 layer keeps for this build's packed kernel: its weights packed with their requantization
/// (kernels/detail/int8_packed.hpp); where the build has no packed kernel, whether every multiplier is a
/// `short_multiplier` if the product reads that (`int8_packed::multiplier_form`: the Cortex-M DSP, Helium), else
/// nothing.
///
/// Example: `static_assert(sizeof(ctattn::detail::kernels::int8_packed_weights<4, 4>) > 0);`
template <std::size_t N, std::size_t K>
using int8_packed_weights =
    std::conditional_t<std::is_void_v<int8_packed_ops> && int8_declared<int8_product_ops>::reads_short_multipliers,
                       int8_packed::multiplier_form, typename int8_packed::packed_type<int8_packed_ops, N, K>::type>;

/// `int8_fully_connected` with the layer's packed weights too: at run time the packed kernel reads those, where the
/// build has one and the packing is `exact()`; otherwise (and in constant evaluation) the plain product. `packed`
/// must be the packing of w, start, multipliers and zero (`ctattn::qlinear` keeps them so).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  requires(MC == N || MC == 1)
constexpr void int8_fully_connected(const std::int8_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                    const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                                    std::int32_t zero, std::int8_t (&y)[M][N],
                                    const int8_packed_weights<N, K>& packed) noexcept {
  if constexpr (std::is_same_v<int8_packed_weights<N, K>, int8_packed::multiplier_form>) {
    int8_product_requantized(
        x, w, int8_epilogue<(MC > 1)>{start, nullptr, multipliers, zero, packed.short_multipliers != 0}, y);
    return;
  } else if constexpr (!std::is_void_v<int8_packed_ops>) {
    if (!std::is_constant_evaluated() && packed.exact()) {
      int8_packed::packed_product<int8_packed_ops, M, K, N, K, N>(&x[0][0], packed, zero, &y[0][0]);
      return;
    }
  }
  static_cast<void>(packed);
  int8_fully_connected(x, w, start, multipliers, zero, y);
}

/// sum_t p[t] for t < K: the backend's `row_sum<K>` where it has one (Helium's `vaddva`, the DSP's `sxtab16`),
/// else the loop.
template <std::size_t K, typename Ops = int8_ops>
constexpr std::int32_t int8_row_sum(const std::int8_t* p) noexcept {
  if (!std::is_constant_evaluated()) {
    if constexpr (int8_declared<Ops>::has_row_sum) return Ops::template row_sum<K>(p);
  }
  // Rationale: four terms a step, so that a core without SIMD (the Cortex-M3, RV32IM) spends an `add` and an `lb`
  // per byte and its loop's counting every fourth: the sums of the rows of a short product (int8 attention's
  // Q K^T at d_k = 8) were a fifth of its instructions one byte a step.
  std::int32_t sum = 0;
  std::size_t t = 0;
  for (; t + 4 <= K; t += 4) sum += p[t] + p[t + 1] + p[t + 2] + p[t + 3];
  for (; t < K; ++t) sum += p[t];
  return sum;
}

/// The column starts of the int8 product (a - a_zero)(b - b_zero)^T over K terms (`int8_window_product_from_starts`
/// reads them): K a_zero b_zero - a_zero sum_k b[b_row + c][b_column + k] for each of N rows of b, wrapping as the
/// product's int32 sums do.
template <std::size_t K, std::size_t N, std::size_t RB, std::size_t CB>
constexpr void int8_column_starts(const std::int8_t (&b)[RB][CB], std::size_t b_row, std::size_t b_column,
                                  std::int32_t a_zero, std::int32_t b_zero, std::int32_t (&column_start)[N]) noexcept {
  const auto k_terms = static_cast<std::uint32_t>(static_cast<std::int32_t>(K) * a_zero * b_zero);
  for (std::size_t c = 0; c < N; ++c) {
    const std::int32_t sum = a_zero == 0 ? 0 : int8_row_sum<K>(&b[b_row + c][b_column]);
    column_start[c] = static_cast<std::int32_t>(k_terms - static_cast<std::uint32_t>(a_zero * sum));
  }
}

/// The int8 product (a - a_zero)(b - b_zero)^T over windows from its column starts (`int8_column_starts`, made once
/// for products that share b and a_zero), requantized by one multiplier: y[y_row + r][y_column + c] for r < M,
/// c < N, from M rows of a and N rows of b of K terms each.
// Rationale: as for int8_dot_rows, GCC 12 at -O3 -march=native reports the rows of a read for their sums as partly
// outside the caller's array (int8 attention at n = 128, a block of 64 queries' weights: benchmarks/
// bench_attention_speed.cpp); every index is below M <= RA, so the warning is switched off for this function alone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB,
          std::size_t RY, std::size_t CY>
constexpr void int8_window_product_from_starts(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                                               const std::int8_t (&b)[RB][CB], std::size_t b_row, std::size_t b_column,
                                               std::int32_t b_zero, const std::int32_t (&column_start)[N],
                                               const math::quantized_multiplier& multiplier, std::int32_t zero,
                                               std::int8_t (&y)[RY][CY], std::size_t y_row,
                                               std::size_t y_column) noexcept {
  if (b_zero == 0) {
    int8_window_product_requantized<M, K, N>(a, a_row, a_column, b, b_row, b_column,
                                             int8_epilogue<false>{column_start, nullptr, &multiplier, zero}, y, y_row,
                                             y_column);
    return;
  }
  std::int32_t row_start[M];
  for (std::size_t r = 0; r < M; ++r) row_start[r] = -b_zero * int8_row_sum<K>(&a[a_row + r][a_column]);
  int8_window_product_requantized<M, K, N>(a, a_row, a_column, b, b_row, b_column,
                                           int8_epilogue<false, true>{column_start, row_start, &multiplier, zero}, y,
                                           y_row, y_column);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// The int8 product (a - a_zero)(b - b_zero)^T over windows (`int8_window_product_requantized`'s), requantized by
/// one multiplier: its zero points as the starts of that kernel (their sums over each row of a and of b, once per
/// call). y[y_row + r][y_column + c] for r < M, c < N, from M rows of a and N rows of b of K terms each.
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB,
          std::size_t RY, std::size_t CY>
constexpr void int8_window_product_zero_points(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                                               const std::int8_t (&b)[RB][CB], std::size_t b_row, std::size_t b_column,
                                               std::int32_t a_zero, std::int32_t b_zero,
                                               const math::quantized_multiplier& multiplier, std::int32_t zero,
                                               std::int8_t (&y)[RY][CY], std::size_t y_row,
                                               std::size_t y_column) noexcept {
  std::int32_t column_start[N];
  int8_column_starts<K, N>(b, b_row, b_column, a_zero, b_zero, column_start);
  int8_window_product_from_starts<M, K, N>(a, a_row, a_column, b, b_row, b_column, b_zero, column_start, multiplier,
                                           zero, y, y_row, y_column);
}

/// The int8 product (a - a_zero)(b - b_zero)^T requantized by one multiplier, b given as N rows of K
/// (`int8_window_product_zero_points` over whole arrays).
template <std::size_t M, std::size_t K, std::size_t N>
constexpr void int8_product_transposed_requantized(const std::int8_t (&a)[M][K], const std::int8_t (&b)[N][K],
                                                   std::int32_t a_zero, std::int32_t b_zero,
                                                   const math::quantized_multiplier& multiplier, std::int32_t zero,
                                                   std::int8_t (&y)[M][N]) noexcept {
  int8_window_product_zero_points<M, K, N>(a, 0, 0, b, 0, 0, a_zero, b_zero, multiplier, zero, y, 0, 0);
}

/// The backend's own softmax of a row with every entry visible (Helium, AVX-512), where it has one and the row's
/// length is within its `softmax_row_shortest` and `softmax_row_limit`: true when it computed the row.
template <typename Ops = int8_ops>
bool backend_softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                         const std::int32_t* table) noexcept {
  if constexpr (int8_declared<Ops>::has_softmax_row) {
    if (end > begin && end - begin <= Ops::softmax_row_limit && end - begin >= Ops::softmax_row_shortest) {
      Ops::softmax_row(x, w, begin, end, table);
      return true;
    }
  }
  return false;
}

/// The backend's own sums[i][c] = sum_j (w[i][begin + j] - w_zero)(v[j v_stride + c] - v_zero) for i < G, c < D,
/// j < n (the weights of G queries times the same rows of values: `int8_attend_group`'s decoding step, one query
/// head or the G that share a value head), where it has them for D and G: true when it computed them.
template <std::size_t D, std::size_t G, std::size_t W, std::size_t S, typename Ops = int8_ops>
bool backend_weighted_rows(const std::int8_t (&w)[G][W], std::size_t begin, std::int32_t w_zero, const std::int8_t* v,
                           std::size_t v_stride, std::int32_t v_zero, std::size_t n,
                           std::int32_t (&sums)[G][S]) noexcept {
  if constexpr (int8_declared<Ops>::has_weighted_rows) {
    if constexpr (Ops::template weighted_rows_take<D, G>) {
      Ops::template weighted_rows<D, G>(w[0] + begin, W, w_zero, v, v_stride, v_zero, n, sums[0], S);
      return true;
    }
  }
  return false;
}

/// How many of the G query heads that share a key/value head a decoding step attends to at once
/// (`detail::int8_attend_group`): all G where the backend computes their weighted values in one pass over the value
/// rows (`weighted_rows_take<DV, G>`: Helium's), else 1.
// Rationale: measured on the stories260K-shaped model's int8 step: on the M55 the G = 2 heads together took 1,519
// instructions fewer a token; on the Cortex-M7 with GCC 12 -O2 the portable loops over two heads' sums took 6,400
// more than one head at a time, beyond the 720 that the shared key loads saved.
template <std::size_t DV, std::size_t G, typename Ops = int8_ops>
inline constexpr std::size_t int8_heads_together = [] {
  if constexpr (int8_declared<Ops>::has_weighted_rows) {
    if constexpr (Ops::template weighted_rows_take<DV, G>) return G;
  }
  return std::size_t{1};
}();

/// The per-row arithmetic of the int8 softmax as ctattn computes it (`ctattn::softmax_method::rounded`,
/// quantized/softmax.hpp): `table[d]` is e^(-scale d) in Q20, the row's terms summed in int64, each weight
/// round(256 term / sum) - 128 by one reciprocal per row.
struct rounded_softmax {
  using sum_type = std::int64_t;
  struct row_constants {
    std::uint64_t sum, divisor, reciprocal;
  };
  static constexpr sum_type sum_term(std::int32_t entry) noexcept { return entry; }
  // round(256 term / sum) = floor((512 term + sum) / (2 sum)), ties away from zero (all positive), then the zero
  // point. Rationale: one division per row, not per weight (a 64-bit division is a library call of a hundred
  // cycles or more on a 32-bit core). With r = floor(2^40 / d), d = 2 sum, the guess (n r) >> 40 for a numerator
  // n < 2^40 is the quotient or one less (its error is n (2^40 / d - r) / 2^40 < 1), and one comparison settles
  // it: the exact quotient, the division's bits. n r < 2^40 (quotient + 1) <= 2^49 cannot overflow.
  // A sum of 0 means no visible entry (a visible one adds table[0] = 2^20): the divisor 1 only keeps the reciprocal
  // defined, and no weight is computed.
  // Rationale: the exact reciprocal here, for rows of any length and in constant evaluation; the rows whose
  // numerators stay below 2^32 (`short_row`, the backends' own rows) take `math::reciprocal_guess`, one 32-bit
  // division where this one is the C library's 64-bit division on a 32-bit core.
  static constexpr row_constants row(sum_type sum) noexcept {
    const auto divisor = sum == 0 ? std::uint64_t{1} : static_cast<std::uint64_t>(2 * sum);
    return {static_cast<std::uint64_t>(sum), divisor, (std::uint64_t{1} << 40) / divisor};
  }
  // Rationale: at run time, a row whose sum is below 2^30 (under 1,024 keys at the largest entry 2^20) takes the
  // same steps on 32-bit operands: n < 2^31, r <= 2^19 (a computed weight's row holds at least one entry 2^20, so
  // d >= 2^21), each product one 32 x 32 -> 64 multiply (`umull`). On a 32-bit core that halves a weight's
  // instructions (30 to 14 on a M7), where the int64 form multiplies and compares 64-bit words throughout.
  static constexpr std::int8_t weight(const row_constants& r, std::int32_t entry) noexcept {
    if (!std::is_constant_evaluated() && r.sum < (std::uint64_t{1} << 30) && r.reciprocal < (std::uint64_t{1} << 32)) {
      return short_weight(512 * static_cast<std::uint32_t>(entry) + static_cast<std::uint32_t>(r.sum),
                          static_cast<std::uint32_t>(r.reciprocal), static_cast<std::uint32_t>(r.divisor));
    }
    const std::uint64_t numerator = 512 * static_cast<std::uint64_t>(entry) + r.sum;
    std::uint64_t quotient = (numerator * r.reciprocal) >> 40;
    if ((quotient + 1) * r.divisor <= numerator) ++quotient;
    const std::int64_t v = static_cast<std::int64_t>(quotient) - 128;
    return static_cast<std::int8_t>(v > 127 ? 127 : v);
  }

  /// `weight`'s bits for a numerator n = 512 entry + sum below 2^32 and its row's divisor d, on 32-bit operands:
  /// the guess (n r) >> 40, settled by its remainder, for a reciprocal r that makes it floor(n / d) or one less
  /// (the exact floor(2^40 / d), or `math::reciprocal_guess(d)`).
  // Rationale: the guess q is the quotient or one less, so q d <= n < 2^32: the remainder n - q d (one `mls`) is
  // exact in 32 bits, and the quotient is q + 1 where it reaches d; a 64-bit product of q + 1 and d took more.
  CTATTN_ALWAYS_INLINE static constexpr std::int8_t short_weight(std::uint32_t numerator, std::uint32_t reciprocal,
                                                                 std::uint32_t divisor) noexcept {
    auto quotient = static_cast<std::uint32_t>((std::uint64_t{numerator} * reciprocal) >> 40);
    quotient += numerator - quotient * divisor >= divisor ? 1u : 0u;
    return saturate_int8(static_cast<std::int32_t>(quotient) - 128);
  }

  /// The longest rows `short_row` takes: a sum of at most 1,023 terms of 2^20 or less stays below 2^30.
  static constexpr std::size_t short_row_limit = 1023;
  /// At run time, the weights of the n entries at x (1 <= n <= `short_row_limit`, every one visible) into w:
  /// `int8_softmax_row_portable`'s bits in loops without the visibility test, on 32-bit sums, each weight's
  /// quotient settled by its remainder.
  // Rationale: a decoding step's rows (40 of about 12 keys a token in the stories260K-shaped model); in the portable
  // loops on a M7 (GCC 12 -Os) an entry took 45 instructions, the visibility test in each of the three loops, the
  // sum in two words and the guess checked with a 64-bit product (`short_weight` now). The row's reciprocal by
  // one 32-bit division (`math::reciprocal_guess`), not the exact one's 64-bit library division.
  // Rationale: GCC 12 at -O3 with AVX2 vectorizes the weights' loop 16 at a time and, inlined into an attention
  // whose rows hold 7 keys, reports that version's store as overflowing (-Wstringop-overflow) though n <= 7 there
  // never reaches it; the warning is off for this function.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
  // Rationale: the loops walk pointers to x's end and test at their foot (n >= 1): GCC 12 at -Os made each an
  // index, a test at the head and a branch back (2 instructions an entry more in each of the three loops).
  static void short_row(const std::int8_t* x, std::int8_t* w, std::size_t n, const std::int32_t* table) noexcept {
    const std::int8_t* const end = x + n;
    const std::int8_t* p = x;
    std::int32_t most = -128;
    do {
      most = *p > most ? *p : most;
    } while (++p != end);
    // Rationale: the largest entry's table position, so that each term is one load at a negative index.
    const std::int32_t* const at_largest = table + most;
    std::uint32_t sum = 0;
    p = x;
    do {
      sum += static_cast<std::uint32_t>(at_largest[-*p]);
    } while (++p != end);
    // sum >= 2^20 (the largest entry adds table[0]), so d = 2 sum is in [2^21, 2^31): `math::reciprocal_guess`.
    const std::uint32_t divisor = 2 * sum;
    const std::uint32_t reciprocal = math::reciprocal_guess(divisor);
    p = x;
    do {
      *w++ = short_weight((static_cast<std::uint32_t>(at_largest[-*p]) << 9) + sum, reciprocal, divisor);
    } while (++p != end);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
};

/// The per-row arithmetic of TFLite's int8 softmax (`ctattn::softmax_method::tflite`, its reference kernel's and
/// CMSIS-NN's `arm_softmax_s8`'s bits): `table[d]` is gemmlowp's e^(-scale d) in Q0.31 (0 beyond TFLite's
/// `diff_min`), each term rescaled to Q12.19 and summed in int32, the sum's reciprocal by `math::reciprocal_of_sum`,
/// each weight round(reciprocal x entry / 2^(bits over unit + 23)) - 128, clamped.
struct tflite_softmax {
  using sum_type = std::int32_t;
  using row_constants = math::fixed_reciprocal;
  static constexpr int sum_integer_bits = 12;
  static constexpr sum_type sum_term(std::int32_t entry) noexcept {
    return math::rounding_divide_by_power_of_two(entry, sum_integer_bits);
  }
  static constexpr row_constants row(sum_type sum) noexcept {
    return sum == 0 ? row_constants{} : math::reciprocal_of_sum(sum, sum_integer_bits);
  }
  // Rationale: a row of 512 or more keys all near its largest can reach a sum of 2^28 and a shift past 31, where
  // TFLite's reference asserts; the weight there is below half an output step, 0 when rounded, as here.
  static constexpr std::int8_t weight(const row_constants& r, std::int32_t entry) noexcept {
    const int exponent = r.bits_over_unit + 31 - 8;
    const std::int32_t product = math::saturating_rounding_doubling_high_mul(r.scale, entry);
    const std::int32_t v = (exponent > 31 ? 0 : math::rounding_divide_by_power_of_two(product, exponent)) - 128;
    return static_cast<std::int8_t>(v > 127 ? 127 : (v < -128 ? -128 : v));
  }
};

// The portable form of int8_softmax_row (below).
template <typename Method>
constexpr void int8_softmax_row_portable(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                                         const std::int32_t* table, const bool* visible) noexcept;

/// The int8 softmax of x[begin, end) into w[begin, end) with the output quantization scale 1/256, zero point -128
/// (ctattn/quantized/softmax.hpp gives the methods): `table[d]` is the method's e^(-scale d) for d = 0 to 255, the
/// distance from the row's largest entry. When `visible` is not null, only the entries j with visible[j] take part;
/// the others get weight 0 (-128). A range with no visible entry gets weight 0 everywhere. Entries outside
/// [begin, end) are not touched. At run time, a backend's own softmax for `rounded_softmax` where it has one.
template <typename Method = rounded_softmax>
CTATTN_ALWAYS_INLINE constexpr void int8_softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin,
                                                     std::size_t end, const std::int32_t* table,
                                                     const bool* visible) noexcept {
  // Rationale: the backend's test inlined into the caller, the portable form a function of its own: called through
  // one function holding both, each row paid that function's frame (23 instructions a row on the M55, 40 rows a
  // token of the stories260K-shaped model) before the backend took it.
  if constexpr (std::is_same_v<Method, rounded_softmax>) {
    if (!std::is_constant_evaluated() && visible == nullptr && backend_softmax_row(x, w, begin, end, table)) return;
  }
  int8_softmax_row_portable<Method>(x, w, begin, end, table, visible);
}

/// `int8_softmax_row` as every target computes it, without a backend's own form.
template <typename Method>
constexpr void int8_softmax_row_portable(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                                         const std::int32_t* table, const bool* visible) noexcept {
  if constexpr (std::is_same_v<Method, rounded_softmax>) {
    if (!std::is_constant_evaluated() && visible == nullptr && end > begin &&
        end - begin <= rounded_softmax::short_row_limit) {
      rounded_softmax::short_row(x + begin, w + begin, end - begin, table);
      return;
    }
  }
  // Rationale: not j, which GCC's -Wshadow reports inside a lambda of a template against a user's global j.
  const auto takes_part = [visible](std::size_t entry) { return visible == nullptr || visible[entry]; };
  std::int32_t largest = -129;
  for (std::size_t j = begin; j < end; ++j) {
    if (takes_part(j) && x[j] > largest) largest = x[j];
  }
  typename Method::sum_type sum = 0;
  for (std::size_t j = begin; j < end; ++j) {
    if (takes_part(j)) sum += Method::sum_term(table[static_cast<std::size_t>(largest - x[j])]);
  }
  // Rationale: a hidden entry's weight set in the same loop, not a loop of its own for a row with none visible,
  // which GCC 12 turned into a memset it then reported as out of bounds (-Wstringop-overflow) for row lengths a
  // backend's own softmax takes.
  const typename Method::row_constants row = Method::row(sum);
  for (std::size_t j = begin; j < end; ++j) {
    w[j] = takes_part(j) ? Method::weight(row, table[static_cast<std::size_t>(largest - x[j])]) : std::int8_t{-128};
  }
}

// The backend's `Ops::add` over n elements at run time, where it has one for these multipliers (Helium's, 4 lanes):
// whether it ran.
template <math::quantized_multiplier AMultiplier, math::quantized_multiplier BMultiplier, int LeftShift,
          math::quantized_multiplier OutMultiplier, typename Ops>
bool int8_add_on_backend(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                         std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
  if constexpr (int8_declared<Ops>::has_add) {
    if constexpr (Ops::add_takes(AMultiplier, BMultiplier, OutMultiplier)) {
      Ops::template add<AMultiplier, BMultiplier, LeftShift, OutMultiplier>(a, a_zero, b, b_zero, out_zero, out, n);
      return true;
    }
  }
  return false;
}

/// TFLite's int8 ADD of one row a and one row b (C elements each) into out: each input less its zero point, shifted
/// left by `LeftShift` and scaled by its multiplier to the common scale, the two summed in int32 and requantized
/// (ctattn/quantized/add.hpp derives the constants). At run time the backend's `Ops::add` where it has one for these
/// multipliers (Helium's, 4 lanes).
// Rationale: the multipliers are template arguments, compile-time constants as the caller derives them, so that the
// compiler folds their shifts' branches (as runtime arguments they cost the int8 sorter 4% more instructions).
template <math::quantized_multiplier AMultiplier, math::quantized_multiplier BMultiplier, int LeftShift,
          math::quantized_multiplier OutMultiplier, std::size_t C, typename Ops = int8_ops>
constexpr void int8_add_row(const std::int8_t (&a)[C], std::int32_t a_zero, const std::int8_t (&b)[C],
                            std::int32_t b_zero, std::int32_t out_zero, std::int8_t (&out)[C]) noexcept {
  // The requantizers of non-negative multipliers (kernels/detail/int8_requantize.hpp): the values of
  // math::multiply_by_quantized_multiplier and requantize, their shifts constants, at compile time and at run time.
  static_assert(AMultiplier.multiplier >= 0 && BMultiplier.multiplier >= 0 && OutMultiplier.multiplier >= 0);
  if (!std::is_constant_evaluated() && int8_add_on_backend<AMultiplier, BMultiplier, LeftShift, OutMultiplier, Ops>(
                                           a, a_zero, b, b_zero, out_zero, out, C)) {
    return;
  }
  constexpr output_requantizer scale_a{AMultiplier.multiplier, AMultiplier.shift, 0};
  constexpr output_requantizer scale_b{BMultiplier.multiplier, BMultiplier.shift, 0};
  const output_requantizer to_out{OutMultiplier.multiplier, OutMultiplier.shift, out_zero};
  // |q - zero| <= 255 < 2^8: the shifted inputs stay below 2^30 where 8 + LeftShift + each multiplier's left shift
  // is at most 30 (`scaled_small`; TFLite's int8 ADD shifts by 20 and scales down).
  constexpr bool small = LeftShift + scale_a.left <= 22 && LeftShift + scale_b.left <= 22;
  for (std::size_t c = 0; c < C; ++c) {
    const std::int32_t shifted_a = (std::int32_t{a[c]} - a_zero) * (1 << LeftShift);
    const std::int32_t shifted_b = (std::int32_t{b[c]} - b_zero) * (1 << LeftShift);
    if constexpr (small) {
      out[c] = to_out(scale_a.scaled_small(shifted_a) + scale_b.scaled_small(shifted_b));
    } else {
      out[c] = to_out(scale_a.scaled(shifted_a) + scale_b.scaled(shifted_b));
    }
  }
}

// The backend's `Ops::multiply` over n elements at run time, where it has one for this multiplier (Helium's, 4
// lanes): whether it ran.
template <math::quantized_multiplier Multiplier, typename Ops>
bool int8_multiply_on_backend(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                              std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
  if constexpr (int8_declared<Ops>::has_multiply) {
    if constexpr (Ops::multiply_takes(Multiplier)) {
      Ops::template multiply<Multiplier>(a, a_zero, b, b_zero, out_zero, out, n);
      return true;
    }
  }
  return false;
}

/// TFLite's int8 MUL element by element (quantized/hadamard.hpp): out = requantize((a - a_zero)(b - b_zero),
/// Multiplier, out_zero), every zero point an int8 one. |a - a_zero| and |b - b_zero| are at most 255, so each product
/// fits an int32. At run time
/// the backend's `Ops::multiply` over all R x C elements where it has one for this multiplier (Helium's, 4 lanes),
/// else the portable loop, which the compiler vectorizes where the target allows.
// Rationale: Clang 14 leaves the loop scalar for the M55 at -Os (19 instructions an element, 15% of the int8 tiny
// llama's decoding step); the backend's form takes about 4.
template <math::quantized_multiplier Multiplier, std::size_t R, std::size_t C, typename Ops = int8_ops>
constexpr void int8_multiply_rows(const std::int8_t (&a)[R][C], std::int32_t a_zero, const std::int8_t (&b)[R][C],
                                  std::int32_t b_zero, std::int32_t out_zero, std::int8_t (&out)[R][C]) noexcept {
  if (!std::is_constant_evaluated() &&
      int8_multiply_on_backend<Multiplier, Ops>(&a[0][0], a_zero, &b[0][0], b_zero, out_zero, &out[0][0], R * C)) {
    return;
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      out[r][c] = requantize((std::int32_t{a[r][c]} - a_zero) * (std::int32_t{b[r][c]} - b_zero), Multiplier, out_zero);
    }
  }
}

/// `int8_add_row` over R rows: at run time one call of the backend's `Ops::add` over all R x C elements where it
/// has one, else row by row.
template <math::quantized_multiplier AMultiplier, math::quantized_multiplier BMultiplier, int LeftShift,
          math::quantized_multiplier OutMultiplier, std::size_t R, std::size_t C, typename Ops = int8_ops>
constexpr void int8_add_rows(const std::int8_t (&a)[R][C], std::int32_t a_zero, const std::int8_t (&b)[R][C],
                             std::int32_t b_zero, std::int32_t out_zero, std::int8_t (&out)[R][C]) noexcept {
  if (!std::is_constant_evaluated() && int8_add_on_backend<AMultiplier, BMultiplier, LeftShift, OutMultiplier, Ops>(
                                           &a[0][0], a_zero, &b[0][0], b_zero, out_zero, &out[0][0], R * C)) {
    return;
  }
  for (std::size_t r = 0; r < R; ++r) {
    int8_add_row<AMultiplier, BMultiplier, LeftShift, OutMultiplier, C, Ops>(a[r], a_zero, b[r], b_zero, out_zero,
                                                                             out[r]);
  }
}

/// The backend's own table lookup of one row (Helium's gather), where it has one: true when it computed the row.
template <typename Ops = int8_ops>
bool backend_lookup_row(const std::int8_t* x, std::int8_t* y, std::size_t n, const std::int8_t* table) noexcept {
  if constexpr (int8_declared<Ops>::has_lookup) {
    Ops::lookup(x, y, n, table);
    return true;
  }
  return false;
}

/// The index of the largest of x[0, n), the first of equal ones (0 when n is 0): `torch.argmax` of an int8 row,
/// greedy decoding's next token. At run time the backend's `Ops::first_largest` where it has one (Helium's, 16
/// values a step), the same index.
///
/// Example: `const std::size_t id = kernels::int8_first_largest(&logits.elements[0][0], 512);`
template <typename Ops = int8_ops>
constexpr std::size_t int8_first_largest(const std::int8_t* x, std::size_t n) noexcept {
  if constexpr (int8_declared<Ops>::has_first_largest) {
    if (!std::is_constant_evaluated()) return Ops::first_largest(x, n);
  }
  std::size_t best = 0;
  for (std::size_t j = 1; j < n; ++j) {
    if (x[j] > x[best]) best = j;
  }
  return best;
}

/// y[r][c] = table[x[r][c] + 128]: an int8 function of one int8 argument, by its 256-entry table.
template <std::size_t R, std::size_t C>
constexpr void int8_lookup_rows(const std::int8_t (&x)[R][C], std::int8_t (&y)[R][C],
                                const std::int8_t (&table)[256]) noexcept {
  for (std::size_t r = 0; r < R; ++r) {
    if (!std::is_constant_evaluated() && backend_lookup_row(x[r], y[r], C, table)) continue;
    for (std::size_t c = 0; c < C; ++c) y[r][c] = table[static_cast<std::size_t>(std::int32_t{x[r][c]} + 128)];
  }
}

/// round(v / 2^15) (half up) + zero, clamped to int8: a Q15 product back to int8.
// Rationale: the zero point joins the rounding constant, a whole multiple of 2^15 that the floor shift carries
// through exactly (|v| < 2^25 in a rotation, so nothing overflows), leaving one `ssat` with its shift where the core
// has it.
CTATTN_ALWAYS_INLINE constexpr std::int8_t q15_requantize(std::int32_t v, std::int32_t zero) noexcept {
  return saturate_int8((v + (std::int32_t{1} << 14) + zero * (std::int32_t{1} << 15)) >> 15);
}

/// RoPE of each of `heads` heads of one int8 row (HeadDim values each, head h from column h HeadDim), in place, in
/// the row's quantization (zero point `zero`): pair p of a head is columns (2p, 2p + 1) when `Interleaved`, else
/// (p, p + HeadDim / 2); with a, b the pair less the zero point and c, s the position's Q15 cosine and sine
/// (`cos[p]`, `sin[p]`), a' = q15_requantize(a c - b s), b' = q15_requantize(a s + b c). At run time the backend's
/// `Ops::rotate_heads` where it has one for HeadDim (`rotate_heads_take`: Helium's, 4 pairs a step; the Cortex-M DSP's, a
/// word at a time), the same bits.
///
/// | operand      | what                                 |
/// |--------------|--------------------------------------|
/// | `row`        | heads x HeadDim int8 values          |
/// | `cos`, `sin` | HeadDim / 2 Q15 values (one position) |
///
/// Example: `kernels::int8_rotate_heads<8, true>(q_row, 8, table.cos_table[t], table.sin_table[t], zero);`
template <std::size_t HeadDim, bool Interleaved, typename Ops = int8_ops>
constexpr void int8_rotate_heads(std::int8_t* row, std::size_t heads, const std::int16_t* cos, const std::int16_t* sin,
                                 std::int32_t zero) noexcept {
  if constexpr (int8_declared<Ops>::has_rotate_heads) {
    if constexpr (Ops::template rotate_heads_take<HeadDim, Interleaved>) {
      if (!std::is_constant_evaluated()) {
        Ops::template rotate_heads<HeadDim, Interleaved>(row, heads, cos, sin, zero);
        return;
      }
    }
  }
  for (std::size_t h = 0; h < heads; ++h) {
    std::int8_t* head = row + h * HeadDim;
    for (std::size_t p = 0; p < HeadDim / 2; ++p) {
      const std::size_t first = Interleaved ? 2 * p : p;
      const std::size_t second = Interleaved ? 2 * p + 1 : p + HeadDim / 2;
      const std::int32_t a = std::int32_t{head[first]} - zero;
      const std::int32_t b = std::int32_t{head[second]} - zero;
      const std::int32_t c = cos[p];
      const std::int32_t s = sin[p];
      head[first] = q15_requantize(a * c - b * s, zero);
      head[second] = q15_requantize(a * s + b * c, zero);
    }
  }
}

/// round(x / 2^s), ties away from zero, for |x| < 2^62 and s in [1, 63] (the bounds in quantized/norm.hpp's
/// rationale keep |x| + 2^(s - 1) below 2^63).
CTATTN_ALWAYS_INLINE constexpr std::int64_t rounding_shift(std::int64_t x, int s) noexcept {
  const std::int64_t half = std::int64_t{1} << (s - 1);
  return x >= 0 ? (x + half) >> s : -((-x + half) >> s);
}

/// The fractional bits of the int8 LayerNorm's output before its rounding (step 6).
inline constexpr int int8_layer_norm_output_fraction_bits = 16;

/// What steps 1 to 3 of the int8 LayerNorm (quantized/norm.hpp's rationale) leave for a row.
struct int8_layer_norm_row {
  std::int64_t width = 0;
  std::int64_t sum = 0;
  std::int64_t inverse = 0;  // I = round(2^61 / R); 0 for a row of equal values (D = 0), where every n_j = 0
  int down = 37;             // 37 - k - f/2
};

/// Steps 1 to 3 given D: V_f = D 2^f + E_f, its exact square root and the reciprocal (a row with D = 0 keeps I = 0).
constexpr int8_layer_norm_row int8_norm_row_from(int8_layer_norm_row row, std::int64_t d, std::int64_t epsilon,
                                                 std::int32_t epsilon_shift) noexcept {
  if (d != 0) {
    const auto v = static_cast<std::uint64_t>((d << epsilon_shift) + epsilon);
    const int k = (62 - static_cast<int>(std::bit_width(v))) / 2;
    const std::uint64_t root = math::isqrt(v << (2 * k));
    // R in [2^30, 2^31): the quotient, in (2^30, 2^31], fits 32 bits.
    row.inverse = math::narrow_quotient((std::uint64_t{1} << 61) + root / 2, static_cast<std::uint32_t>(root));
    row.down = 37 - k - epsilon_shift / 2;
  }
  return row;
}

/// The backend's own S1 and S2 of a row (Helium's `vaddva`, `vmladava`), where it has them: true when it computed
/// them.
template <typename Ops = int8_ops, std::size_t C>
bool backend_sum_and_squares(const std::int8_t (&x)[C], std::int32_t& sum, std::int32_t& squares) noexcept {
  if constexpr (int8_declared<Ops>::has_sum_and_squares) {
    Ops::template sum_and_squares<C>(x, sum, squares);
    return true;
  }
  return false;
}

/// Steps 1 to 3 for one row of C int8 values (C <= 16384): the sums, the variance term, its exact square root and
/// the reciprocal.
template <std::size_t C>
constexpr int8_layer_norm_row int8_layer_norm_row_of(const std::int8_t (&x)[C], std::int64_t epsilon,
                                                     std::int32_t epsilon_shift) noexcept {
  std::int32_t s1 = 0;
  std::int32_t s2 = 0;
  if (std::is_constant_evaluated() || !backend_sum_and_squares(x, s1, s2)) {
    for (std::size_t j = 0; j < C; ++j) {
      const std::int32_t v = x[j];
      s1 += v;
      s2 += v * v;
    }
  }
  constexpr auto c = static_cast<std::int64_t>(C);
  return int8_norm_row_from(int8_layer_norm_row{c, s1, 0, 37}, c * s2 - std::int64_t{s1} * s1, epsilon, epsilon_shift);
}

/// Steps 1 to 3 of the int8 RMSNorm for one row of C int8 values with zero point z (C <= 16383): the LayerNorm's
/// steps with the row centred on z instead of its mean, S1 = C z and D = C sum (q_j - z)^2.
template <std::size_t C>
constexpr int8_layer_norm_row int8_rms_norm_row_of(const std::int8_t (&x)[C], std::int32_t zero, std::int64_t epsilon,
                                                   std::int32_t epsilon_shift) noexcept {
  constexpr auto c = static_cast<std::int64_t>(C);
  std::int32_t s1 = 0;
  std::int32_t squares = 0;
  std::int64_t s2 = 0;
  if (!std::is_constant_evaluated() && backend_sum_and_squares(x, s1, squares)) {
    // sum (q_j - z)^2 = S2 - 2 z S1 + C z^2, exactly.
    s2 = std::int64_t{squares} - 2 * std::int64_t{zero} * s1 + c * zero * zero;
  } else {
    std::int32_t sum = 0;  // below C 255^2 < 2^31
    for (std::size_t j = 0; j < C; ++j) {
      const std::int32_t v = x[j] - zero;
      sum += v * v;
    }
    s2 = sum;
  }
  return int8_norm_row_from(int8_layer_norm_row{c, c * zero, 0, 37}, c * s2, epsilon, epsilon_shift);
}

/// Step 4: n_j = round(N_j I / 2^(37 - k - f/2)), N_j = C q_j - S1: the normalized value with 24 fractional bits
/// (for the int16 LayerNorm too: q is an int8 or an int16 value).
CTATTN_ALWAYS_INLINE constexpr std::int32_t int8_layer_norm_normalized(std::int32_t q,
                                                                       const int8_layer_norm_row& row) noexcept {
  return static_cast<std::int32_t>(rounding_shift((row.width * q - row.sum) * row.inverse, row.down));
}

/// Steps 5 and 6: A_j = round(n_j m_j / 2^shift_j) + b_j, in 2^-16 output steps.
CTATTN_ALWAYS_INLINE constexpr std::int64_t int8_layer_norm_scaled(std::int32_t n, std::int32_t multiplier,
                                                                   std::int32_t shift, std::int32_t bias) noexcept {
  return rounding_shift(std::int64_t{n} * multiplier, shift) + bias;
}

/// v clamped to [-2^30, 2^30]: LayerNorm's A_j held (`int8_layer_norm_row_at_run_time` says why that is enough).
CTATTN_ALWAYS_INLINE std::int32_t held(std::int64_t v) noexcept {
  constexpr std::int64_t limit = std::int64_t{1} << 30;
  return static_cast<std::int32_t>(v < -limit ? -limit : (v > limit ? limit : v));
}

/// a + b for |a| <= 2^30, held within about +-2^30: `qadd` and `ssat` to 31 bits where the core has them, else
/// `held` of the int64 sum.
CTATTN_ALWAYS_INLINE std::int32_t held_sum(std::int32_t a, std::int32_t b) noexcept {
#if defined(__ARM_FEATURE_DSP)
  return signed_saturate<31>(__builtin_arm_qadd(a, b));
#else
  return held(std::int64_t{a} + b);
#endif
}

/// Steps 4 to 7 of the int8 LayerNorm for one row at run time, `int8_layer_norm_rows`'s bits: DownHigh when step
/// 4's shift is 33 or more (chosen once a row).
// Rationale: rounding half away from zero is odd, round(-v) = -round(v), so each product is formed from magnitudes as
// an unsigned 32 x 32 -> 64 bit multiply (|N_j| < 2^22 and I <= 2^31; |n_j|, |m_j| < 2^31) and rounded by adding
// half and shifting, its sign put back after. In step 6 the product is below 2^62, so its high word is below 2^30:
// for a shift s of 33 or more, the low word cannot change floor(p / 2^(s - 1)), so the quotient rounded is the high
// word shifted by s - 33, plus 1, halved, and for s = 32 the carry is the low word's top bit, and either way
// |A_j - b_j| <= 2^30. A_j is then held near +-2^30 by a saturating add (`qadd`, then `ssat` to 31 bits, where the core has them; else an int64
// sum and a clamp): past 2^30 - 1 in magnitude every A_j gives the saturated output, 2^30 / 2^16 steps being beyond
// any int8 with its zero point, so the holds give the reference's bits. Shifts below 32 (weights past 2^8 output
// steps) take int64 sums. The zero point joins the last rounding's constant (|A_j| + 2^15 + 2^23 < 2^31). About 35
// instructions an element on the Cortex-M4 with GCC 12 -Os, against 70 for the form with 64-bit shifts by a
// variable amount.
template <bool DownHigh, std::size_t C>
void int8_layer_norm_row_at_run_time(const std::int8_t (&x)[C], std::int8_t (&y)[C], const int8_layer_norm_row& row,
                                     const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                                     const std::int32_t (&bias)[C], std::int32_t out_zero) noexcept {
  const auto sum = static_cast<std::int32_t>(row.sum);
  const auto inverse = static_cast<std::uint32_t>(row.inverse);
  // Step 4's rounding as floor(floor(v / 2^(d - 1)) / 2 + 1/2): the product shifted by d - 1, plus 1, halved.
  const int first = row.down - 1;
  const std::int32_t last_rounding = (1 << 15) + out_zero * (1 << int8_layer_norm_output_fraction_bits);
  const std::int32_t* m_at = multiplier;
  const std::int32_t* s_at = shift;
  const std::int32_t* b_at = bias;
  std::int8_t* out = y;
  for (const std::int8_t* in = x; in != x + C; ++in, ++out, ++m_at, ++s_at, ++b_at) {
    const std::int32_t centered = static_cast<std::int32_t>(C) * *in - sum;
    const auto centered_bits = static_cast<std::uint32_t>(centered);
    const std::uint32_t centered_magnitude = centered < 0 ? 0u - centered_bits : centered_bits;
    const std::uint64_t p = std::uint64_t{centered_magnitude} * inverse;
    // |n_j| < 2^31, so p >> (d - 1) < 2^32.
    std::uint32_t halves;
    if constexpr (DownHigh) {
      halves = static_cast<std::uint32_t>(p >> 32) >> (first - 32);
    } else {
      halves = (static_cast<std::uint32_t>(p) >> first) | (static_cast<std::uint32_t>(p >> 32) << (32 - first));
    }
    const std::uint32_t n_magnitude = (halves + 1) >> 1;
    const std::int32_t m = *m_at;
    const auto m_bits = static_cast<std::uint32_t>(m);
    const std::uint32_t m_magnitude = m < 0 ? 0u - m_bits : m_bits;
    const int s = *s_at;
    const std::uint64_t t = std::uint64_t{n_magnitude} * m_magnitude;
    const auto high = static_cast<std::uint32_t>(t >> 32);
    const bool negative = (centered ^ m) < 0;
    std::int32_t a;
    if (s > 32) {
      const std::uint32_t scaled = ((high >> (s - 33)) + 1) >> 1;
      a = held_sum(static_cast<std::int32_t>(negative ? 0u - scaled : scaled), *b_at);
    } else if (s == 32) {
      const std::uint32_t scaled = high + (static_cast<std::uint32_t>(t) >> 31);
      a = held_sum(static_cast<std::int32_t>(negative ? 0u - scaled : scaled), *b_at);
    } else {
      // A weight past 2^8 output steps: the quotient may pass 2^31 (below 2^40), and a bias of the other sign may
      // bring the sum back into range, so both are added in int64.
      const std::uint64_t scaled = (t + (std::uint64_t{1} << (s - 1))) >> s;
      a = held((negative ? -static_cast<std::int64_t>(scaled) : static_cast<std::int64_t>(scaled)) + *b_at);
    }
    *out = saturate_int8((a + last_rounding + (a >> 31)) >> int8_layer_norm_output_fraction_bits);
  }
}

/// Where the backend has its own steps 4 to 7 of the int8 LayerNorm (Helium's): the smallest of the layer's shifts
/// as it sees them, at most 33 (`Ops::layer_norm_smallest_shift`); it takes the layer's rows when that is 32 or
/// more. -1 elsewhere.
template <typename Ops = int8_ops, std::size_t C>
std::int32_t backend_layer_norm_shift(const std::int32_t (&shift)[C]) noexcept {
  if constexpr (int8_declared<Ops>::has_layer_norm_row) {
    return Ops::template layer_norm_smallest_shift<C>(shift);
  } else {
    return -1;
  }
}

/// The backend's own steps 4 to 7 of the int8 LayerNorm for one row (Helium's, the Cortex-M DSP's), where it has
/// them and takes the layer's shifts (`smallest`, from `backend_layer_norm_shift`, 32 or more) and the row: true when
/// it computed the row.
template <typename Ops = int8_ops, std::size_t C>
bool backend_layer_norm_row(const std::int8_t (&x)[C], std::int8_t (&y)[C], const int8_layer_norm_row& row,
                            const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                            const std::int32_t (&bias)[C], std::int32_t out_zero, std::int32_t smallest) noexcept {
  if constexpr (int8_declared<Ops>::has_layer_norm_row) {
    if (smallest >= 32) {
      return Ops::template layer_norm_row<C>(x, y, static_cast<std::int32_t>(row.sum),
                                             static_cast<std::uint32_t>(row.inverse), row.down, multiplier, shift, bias,
                                             out_zero, smallest >= 33);
    }
  }
  return false;
}

/// The int8 LayerNorm of each row of x into y (steps 1 to 7 of quantized/norm.hpp's rationale): per channel
/// j the weight's `multiplier[j]` and `shift[j]`, the bias `bias[j]` in 2^-16 output steps; the output's zero point.
/// With `RootMeanSquare`, RMSNorm: each row centred on the input's zero point `in_zero` (`int8_rms_norm_row_of`).
template <bool RootMeanSquare = false, std::size_t R, std::size_t C>
constexpr void int8_layer_norm_rows(const std::int8_t (&x)[R][C], std::int8_t (&y)[R][C],
                                    const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                                    const std::int32_t (&bias)[C], std::int64_t epsilon, std::int32_t epsilon_shift,
                                    std::int32_t out_zero, std::int32_t in_zero = 0) noexcept {
  std::int32_t backend_shift = -1;
  if (!std::is_constant_evaluated()) backend_shift = backend_layer_norm_shift(shift);
  for (std::size_t r = 0; r < R; ++r) {
    const int8_layer_norm_row row = RootMeanSquare ? int8_rms_norm_row_of(x[r], in_zero, epsilon, epsilon_shift)
                                                   : int8_layer_norm_row_of(x[r], epsilon, epsilon_shift);
    if (std::is_constant_evaluated()) {
      for (std::size_t j = 0; j < C; ++j) {
        const std::int32_t n = int8_layer_norm_normalized(x[r][j], row);
        const std::int64_t a = int8_layer_norm_scaled(n, multiplier[j], shift[j], bias[j]);
        const std::int64_t q = rounding_shift(a, int8_layer_norm_output_fraction_bits) + out_zero;
        y[r][j] = static_cast<std::int8_t>(q < -128 ? -128 : (q > 127 ? 127 : q));
      }
      continue;
    }
    if (backend_layer_norm_row(x[r], y[r], row, multiplier, shift, bias, out_zero, backend_shift)) continue;
    if (row.down >= 33) {
      int8_layer_norm_row_at_run_time<true>(x[r], y[r], row, multiplier, shift, bias, out_zero);
    } else {
      int8_layer_norm_row_at_run_time<false>(x[r], y[r], row, multiplier, shift, bias, out_zero);
    }
  }
}

}  // namespace detail::kernels
}  // namespace ctattn

#endif  // CTATTN_KERNELS_INT8_HPP
