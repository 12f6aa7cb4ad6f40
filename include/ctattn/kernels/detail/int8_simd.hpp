// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_INT8_SIMD_HPP
#define CTATTN_KERNELS_DETAIL_INT8_SIMD_HPP

/// \file
/// The int8 kernel, written once over a backend's integer operations (kernels/int8.hpp chooses the backend): one
/// row of a against n rows of b, each term (a - a_zero)(b - b_zero) widened to 16 bits before it is multiplied, the
/// products summed in 32-bit lanes. Integer sums: every order gives the same int32, so every backend gives the
/// bits of the scalar loop and of constant evaluation.
///
/// What a backend `Ops` provides (or, instead, its own `dot_rows`, with `has_dot_rows` set). The optional members
/// are declared with their defaults in kernels/detail/ops_defaults.hpp (`int8_ops_defaults`), which `Ops` derives
/// from:
///
/// | member                         | meaning                                                               |
/// |--------------------------------|-----------------------------------------------------------------------|
/// | `step`                         | int8 terms per step                                                    |
/// | `offset`, `make_offset(z)`     | a zero point as the backend subtracts it                               |
/// | `widened`, `widen(p, offset)`  | `step` int8 values at p, each less the zero point, in 16-bit lanes     |
/// | `accumulator`, `zero()`        | 32-bit partial sums                                                    |
/// | `multiply_add(acc, x, y)`      | acc + the lane-wise products x y, summed in pairs into the 32-bit lanes |
/// | `total(acc)`                   | the sum of acc's lanes                                                 |
/// | `totals(accs, out)` (optional: `has_totals`) | the sums of a whole pass's accumulators at once           |
/// | `tail_ops` (optional)          | a narrower backend for the terms past the last whole step (default void) |
/// | `rows_per_pass` (optional)     | rows of b per pass (default 4)                                         |
///
/// No sum can overflow: a term is at most 255 x 255 in magnitude, and the rule `int8_accumulator_must_not_overflow`
/// keeps the length K at most 33,025, so every partial sum lies within [-2^31, 2^31).

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ctattn::detail::int8_simd {

/// Terms per step of the narrowest backend Ops hands its tails to (`Ops::step` where its `tail_ops` is void): a
/// product of fewer terms has no whole step on any of them.
template <typename Ops>
[[nodiscard]] consteval std::size_t narrowest_step() noexcept {
  if constexpr (std::is_void_v<typename Ops::tail_ops>) {
    return Ops::step;
  } else {
    return narrowest_step<typename Ops::tail_ops>();
  }
}

/// sum_t (a[t] - a_zero)(b[t] - b_zero) over `terms` terms from the sums of the raw values, sum a b, sum a and
/// sum b: sum a b - b_zero sum a - a_zero sum b + terms a_zero b_zero, the dot-product forms' way to bring the zero
/// points in (NEON's `sdot`, AVX-512 VNNI's `vpdpbusd`). Modulo 2^32, as every sum of the kernels: the exact value
/// wherever it fits an int32, where the rule `int8_accumulator_must_not_overflow` keeps it.
constexpr std::int32_t offset_dot(std::int32_t ab, std::int32_t sum_a, std::int32_t sum_b, std::int32_t a_zero,
                                  std::int32_t b_zero, std::size_t terms) noexcept {
  const auto u = [](std::int32_t v) { return static_cast<std::uint32_t>(v); };
  return static_cast<std::int32_t>(u(ab) - u(b_zero) * u(sum_a) - u(a_zero) * u(sum_b) +
                                   static_cast<std::uint32_t>(terms) * u(a_zero) * u(b_zero));
}

/// sum_t (a[t] - a_zero)(row[t] - b_zero) for t in [first, k): the terms past the last whole step, in the scalar
/// loop's arithmetic.
inline std::int32_t rest_of_row(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* row, std::int32_t b_zero,
                                std::size_t first, std::size_t k) noexcept {
  std::int32_t sum = 0;
  for (std::size_t t = first; t < k; ++t) sum += (std::int32_t{a[t]} - a_zero) * (std::int32_t{row[t]} - b_zero);
  return sum;
}

/// out[r] = (or +=, with Accumulate) the sum over the whole steps of row `rows[r]`, for the R rows of one pass (R is
/// 1, 4 or `Ops::rows_per_pass`). A whole pass is totalled by `Ops::totals` where the backend has it (a transposing
/// tree of additions on x86), else each accumulator by `Ops::total`.
// Rationale: the rows of a pass are a fold over a compile-time index pack, so that each accumulator is a variable
// of its own: -Os does not unroll a loop over four accumulators, and left in an array they live on the stack.
template <typename Ops, bool Accumulate, std::size_t... R>
void whole_steps(const std::int8_t* a, typename Ops::offset a_offset, const std::int8_t* const* rows,
                 typename Ops::offset b_offset, std::size_t whole, std::int32_t* out,
                 std::index_sequence<R...>) noexcept {
  typename Ops::accumulator sums[sizeof...(R)]{(static_cast<void>(R), Ops::zero())...};
  for (std::size_t t = 0; t < whole; t += Ops::step) {
    const typename Ops::widened x = Ops::widen(a + t, a_offset);
    ((sums[R] = Ops::multiply_add(sums[R], x, Ops::widen(rows[R] + t, b_offset))), ...);
  }
  if constexpr (Ops::has_totals && sizeof...(R) == Ops::rows_per_pass) {
    std::int32_t totals[sizeof...(R)];
    Ops::totals(sums, totals);
    if constexpr (Accumulate) {
      ((out[R] += totals[R]), ...);
    } else {
      ((out[R] = totals[R]), ...);
    }
  } else if constexpr (Accumulate) {
    ((out[R] += Ops::total(sums[R])), ...);
  } else {
    ((out[R] = Ops::total(sums[R])), ...);
  }
}

/// out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero) for j < n, t < k, by the tiling over Ops's operations;
/// with Accumulate, added to out[j]. Passes of `Ops::rows_per_pass` rows, then the rows left one by one. The terms
/// past the last whole step go to `Ops::tail_ops` where the backend names a narrower one (AVX-512's 32-term steps
/// leave up to 31, which AVX2's 16-term steps take), else to the scalar loop.
// Rationale: GCC 12 at -O3 reports the row pointer of the loop over the rows left as overflowing at an iteration
// count no call reaches (-Waggressive-loop-optimizations: the loop's bound is a run-time n), and -Werror makes that
// an error; the warning is switched off for this function alone. A single loop of possibly partial passes avoided
// it, at 13% more instructions on the Cortex-M4 (the partial pass recomputes rows).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
template <typename Ops, bool Accumulate = false>
void tiled_dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                    std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
  const std::size_t whole = k - k % Ops::step;
  if (whole > 0) {
    const typename Ops::offset a_offset = Ops::make_offset(a_zero);
    const typename Ops::offset b_offset = Ops::make_offset(b_zero);
    constexpr std::size_t pass = Ops::rows_per_pass;
    std::size_t j = 0;
    for (; j + pass <= n; j += pass) {
      const std::int8_t* rows[pass];
      for (std::size_t r = 0; r < pass; ++r) rows[r] = b + (j + r) * b_stride;
      whole_steps<Ops, Accumulate>(a, a_offset, rows, b_offset, whole, out + j, std::make_index_sequence<pass>{});
    }
    // Passes of 8 (x86) leave up to 7 rows: 4 of them in a pass of their own.
    if constexpr (pass > 4) {
      if (j + 4 <= n) {
        const std::int8_t* rows[4] = {b + j * b_stride, b + (j + 1) * b_stride, b + (j + 2) * b_stride,
                                      b + (j + 3) * b_stride};
        whole_steps<Ops, Accumulate>(a, a_offset, rows, b_offset, whole, out + j, std::make_index_sequence<4>{});
        j += 4;
      }
    }
    for (; j < n; ++j) {
      const std::int8_t* row = b + j * b_stride;
      whole_steps<Ops, Accumulate>(a, a_offset, &row, b_offset, whole, out + j, std::make_index_sequence<1>{});
    }
  } else if constexpr (!Accumulate) {
    for (std::size_t j = 0; j < n; ++j) out[j] = 0;
  }
  if (whole == k) return;
  if constexpr (!std::is_void_v<typename Ops::tail_ops>) {
    tiled_dot_rows<typename Ops::tail_ops, true>(a + whole, a_zero, b + whole, b_stride, b_zero, k - whole, n, out);
  } else {
    for (std::size_t j = 0; j < n; ++j) out[j] += rest_of_row(a, a_zero, b + j * b_stride, b_zero, whole, k);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// Whether rows of K terms take `fixed_group_dot_rows` (G = 1: one query's keys) on Ops: a microcontroller backend's
/// steps (at most 8 terms: the Cortex-M DSP's, Helium's) without a dot_rows kernel of its own, K whole steps, at most
/// 4 of them (a's widened steps stay in registers).
// Rationale: the x86 backends' wide steps keep the tiling, whose passes share a's loads and total several rows'
// vectors at once.
template <typename Ops, std::size_t K>
inline constexpr bool fixed_dot_rows_fit =
    !Ops::has_dot_rows && Ops::step <= 8 && K >= Ops::step && K % Ops::step == 0 && K / Ops::step <= 4;

/// Whether G rows of K terms take `fixed_group_dot_rows` on Ops: K fits (`fixed_dot_rows_fit`), and the G rows'
/// widened steps, at most 4, stay in registers beside a row of b's.
template <typename Ops, std::size_t K, std::size_t G>
inline constexpr bool fixed_group_dot_rows_fit = fixed_dot_rows_fit<Ops, K> && G >= 1 && G * (K / Ops::step) <= 4;

/// out[i out_stride + j] = sum_t (a[i K + t] - a_zero)(b[j b_stride + t] - b_zero) for i < G, j < n, t < K, K a
/// constant of a few steps: the G consecutive slices of a widened once for all n rows, each row of b loaded and
/// widened once for all of them, its steps unrolled.
// Rationale: the keys of one query in a decoding step with small heads (head_dim 8: two steps on the Cortex-M DSP):
// the tiling widened a again for every pass and ran its loops on a run-time k, about 4 instructions a
// multiply-accumulate on a M7 against under 2 here.
// Rationale: the G query heads that share a key head in a decoding step with grouped-query attention (2 in the
// stories260K-shaped model): a key's load and widening served one head a pass, half the key's instructions on
// Helium (6 a head a key against 4).
template <typename Ops, std::size_t K, std::size_t G>
void fixed_group_dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                          std::int32_t b_zero, std::size_t n, std::int32_t* out, std::size_t out_stride) noexcept {
  static_assert(fixed_group_dot_rows_fit<Ops, K, G>);
  constexpr std::size_t steps = K / Ops::step;
  const typename Ops::offset b_offset = Ops::make_offset(b_zero);
  typename Ops::widened x[G][steps];
  {
    const typename Ops::offset a_offset = Ops::make_offset(a_zero);
#pragma GCC unroll 4
    for (std::size_t i = 0; i < G; ++i) {
#pragma GCC unroll 4
      for (std::size_t t = 0; t < steps; ++t) x[i][t] = Ops::widen(a + i * K + t * Ops::step, a_offset);
    }
  }
  // Rationale: pointers to the key and its sums, the loop tested at its foot against the last key: GCC 12 at -Os
  // indexed both by j and tested at the head (4 instructions a key more on the M7).
  if (n == 0) return;
  const std::int8_t* const end = b + n * b_stride;
  do {
    typename Ops::widened y[steps];
#pragma GCC unroll 4
    for (std::size_t t = 0; t < steps; ++t) y[t] = Ops::widen(b + t * Ops::step, b_offset);
#pragma GCC unroll 4
    for (std::size_t i = 0; i < G; ++i) {
      typename Ops::accumulator sum = Ops::zero();
#pragma GCC unroll 4
      for (std::size_t t = 0; t < steps; ++t) sum = Ops::multiply_add(sum, x[i][t], y[t]);
      out[i * out_stride] = Ops::total(sum);
    }
    b += b_stride;
    ++out;
  } while (b != end);
}

/// out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero) for j < n, t < k: the backend's own kernel where it has
/// one, else the tiling.
template <typename Ops>
void dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
              std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
  if constexpr (Ops::has_dot_rows) {
    Ops::dot_rows(a, a_zero, b, b_stride, b_zero, k, n, out);
  } else {
    tiled_dot_rows<Ops>(a, a_zero, b, b_stride, b_zero, k, n, out);
  }
}

}  // namespace ctattn::detail::int8_simd

#endif  // CTATTN_KERNELS_DETAIL_INT8_SIMD_HPP
