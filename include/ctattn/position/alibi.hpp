// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_POSITION_ALIBI_HPP
#define CTATTN_POSITION_ALIBI_HPP

/// \file
/// ALiBi, attention with linear biases (Press, Smith and Lewis, "Train Short, Test Long"): no position
/// embedding at all; each head adds to its scores a penalty proportional to the query-key distance, with a
/// fixed slope per head. The biases are plain matrices, for the attention kernels' additive-bias mask.

#include <array>
#include <cstddef>
#include <limits>

#include "ctattn/math/exp.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/position/rules.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

namespace detail {

// 2^(-8k/h) in double: an exact power of two times exp(-(r/h) ln 2) for the fractional part r/h.
constexpr double alibi_power_of_two_slope(std::size_t k, std::size_t heads) noexcept {
  const std::size_t whole = 8 * k / heads;
  const std::size_t remainder = 8 * k % heads;
  constexpr double ln2 = 0x1.62e42fefa39efp-1;
  double slope = remainder == 0 ? 1.0 : math::exp(-(static_cast<double>(remainder) / static_cast<double>(heads)) * ln2);
  for (std::size_t e = 0; e < whole; ++e) slope *= 0.5;  // exact
  return slope;
}

// Slope of head `head` (0-based) of `heads`, by the paper's rule.
constexpr double alibi_slope(std::size_t head, std::size_t heads) noexcept {
  std::size_t below = 1;  // the largest power of two <= heads
  while (below * 2 <= heads) below *= 2;
  if (head < below) return alibi_power_of_two_slope(head + 1, below);
  // the rest: every other slope (the 1st, 3rd, 5th, ...) of the 2 * below power-of-two sequence
  return alibi_power_of_two_slope(2 * (head - below) + 1, 2 * below);
}

}  // namespace detail

/// The ALiBi slope of each of `Heads` heads, by the paper's rule:
///   - Heads a power of two: slope_k = 2^(-8 (k+1) / Heads), k = 0 .. Heads-1 (8 heads: 1/2, 1/4, ..., 1/256);
///   - otherwise, with c the largest power of two below Heads: the c slopes for c heads, followed by the
///     1st, 3rd, 5th, ... slopes for 2c heads, Heads - c of them (6 heads: 1/4, 1/16, 1/64, 1/256, 1/2, 1/8).
///
/// | parameter | meaning                 |
/// |-----------|-------------------------|
/// | `T`       | `float` or `double`     |
/// | `Heads`   | number of heads, >= 1   |
/// | result    | `std::array<T, Heads>`  |
///
/// Computed in double and rounded once to T (exact whenever 8k/Heads is an integer, e.g. every Heads <= 8).
///
/// Example:
/// \code
///   constexpr auto slopes = ctattn::alibi_slopes<float, 8>();
///   static_assert(slopes[0] == 0.5f && slopes[7] == 0x1p-8f);
/// \endcode
template <typename T, std::size_t Heads>
  requires Scalar<T>
[[nodiscard]] constexpr std::array<T, Heads> alibi_slopes() noexcept {
  std::array<T, Heads> slopes{};
  if constexpr (shape_error::count_must_be_positive<op::alibi, count<Heads>>::check()) {
    for (std::size_t k = 0; k < Heads; ++k) slopes[k] = static_cast<T>(detail::alibi_slope(k, Heads));
  }
  return slopes;
}

/// Which ALiBi bias to build; d = j - (i + offset) is the signed distance from query i to key j (negative for
/// keys in the past; offset from `alibi_alignment`).
///
/// | form             | bias(i, j)                           | use with                                  |
/// |------------------|--------------------------------------|-------------------------------------------|
/// | `linear_bias`    | slope * d                            | a causal mask: the paper's form; entries above the diagonal are positive and must be masked (fixture `bias_linear`) |
/// | `causal_bias`    | slope * d for d <= 0, -inf for d > 0 | nothing else: the causal mask and the bias in one matrix |
/// | `symmetric_bias` | -slope * abs(d)                      | no mask: bidirectional encoders (fixture `bias_symmetric`) |
///
/// On and below the diagonal all three give -slope * (i - j): the further back the key, the larger the penalty.
/// `causal_bias` as an additive bias gives bit for bit what `linear_bias` gives under the causal mask.
///
/// Example: `ctattn::alibi_bias<ctattn::alibi_form::symmetric_bias, 5, 5>(0.5f)`.
// Rationale: the enumerators carry a suffix because `ctattn::causal` (a mask) and `ctattn::linear` (a
// projection) already name other things; GCC's -Wshadow flags an enumerator that reuses such a name.
enum class alibi_form { linear_bias, causal_bias, symmetric_bias };

/// How queries line up with keys when their counts differ (the same two conventions as the causal masks).
///
/// | alignment      | query i sits at position             |
/// |----------------|--------------------------------------|
/// | `top_left`     | i (PyTorch's is_causal, the mask `ctattn::causal`) |
/// | `bottom_right` | i + n_kv - n_q (the last query is the last key: a KV cache; `ctattn::causal_bottom_right`) |
///
/// Example: `ctattn::alibi_bias<ctattn::alibi_form::causal_bias, 1, 128, ctattn::alibi_alignment::bottom_right>(s)`
/// is the bias row of the 128th token decoded against its cache.
enum class alibi_alignment { top_left, bottom_right };

/// The ALiBi bias matrix of one head, to add to its scaled scores (the attention kernels' additive bias).
///
/// | parameter  | meaning                                                |
/// |------------|--------------------------------------------------------|
/// | `Form`     | `alibi_form::linear_bias`, `causal_bias` or `symmetric_bias` (table above) |
/// | `NQ`, `NKV`| number of queries and keys: sizes or named extents     |
/// | `Align`    | `alibi_alignment::top_left` (default) or `bottom_right`|
/// | `slope`    | the head's slope (from `alibi_slopes`)                 |
/// | result     | NQ x NKV                                               |
///
/// Each entry is slope * d rounded once (exact for the power-of-two slopes of up to 8 heads); a distance of 0
/// gives +0.
///
/// Example:
/// \code
///   constexpr auto slopes = ctattn::alibi_slopes<float, 8>();
///   constexpr auto b = ctattn::alibi_bias<ctattn::alibi_form::causal_bias, 5, 5>(slopes[0]);
///   static_assert(b(4, 1) == -1.5f);   // -0.5 * (4 - 1)
/// \endcode
template <alibi_form Form, auto NQ, auto NKV, alibi_alignment Align = alibi_alignment::top_left, typename T>
  requires Scalar<T>
[[nodiscard]] constexpr basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>> alibi_bias(T slope) noexcept {
  using result_type = basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>;
  constexpr auto n_q = static_cast<long long>(result_type::rows);
  constexpr auto n_kv = static_cast<long long>(result_type::cols);
  constexpr long long offset = Align == alibi_alignment::top_left ? 0 : n_kv - n_q;
  result_type bias{};
  for (long long i = 0; i < n_q; ++i) {
    for (long long j = 0; j < n_kv; ++j) {
      const long long d = j - (i + offset);
      T value{};
      if constexpr (Form == alibi_form::symmetric_bias) {
        value = slope * static_cast<T>(d < 0 ? d : -d);
      } else if constexpr (Form == alibi_form::causal_bias) {
        value = d > 0 ? -std::numeric_limits<T>::infinity() : slope * static_cast<T>(d);
      } else {
        value = slope * static_cast<T>(d);
      }
      bias.elements[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = value == 0 ? T{0} : value;
    }
  }
  return bias;
}

/// The ALiBi bias matrices of all `Heads` heads, head k with slope `alibi_slopes<T, Heads>()[k]`.
///
/// | parameter  | meaning                                       |
/// |------------|-----------------------------------------------|
/// | `T`, `Heads` | as in `alibi_slopes`                        |
/// | `NQ`, `NKV`, `Form`, `Align` | as in `alibi_bias` (Form defaults to `causal_bias`) |
/// | result     | `std::array` of Heads matrices NQ x NKV       |
///
/// Example:
/// \code
///   static constexpr auto biases = ctattn::alibi_biases<float, 8, seq{5}, seq{5}>();   // causal
///   // head h: ctattn::scaled_dot_product_attention(q[h], k[h], v[h], ctattn::additive_bias(biases[h]))
/// \endcode
template <typename T, std::size_t Heads, auto NQ, auto NKV, alibi_form Form = alibi_form::causal_bias,
          alibi_alignment Align = alibi_alignment::top_left>
  requires Scalar<T>
[[nodiscard]] constexpr std::array<basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>, Heads>
alibi_biases() noexcept {
  const std::array<T, Heads> slopes = alibi_slopes<T, Heads>();
  std::array<basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>, Heads> biases{};
  for (std::size_t k = 0; k < Heads; ++k) biases[k] = alibi_bias<Form, NQ, NKV, Align>(slopes[k]);
  return biases;
}

}  // namespace ctattn

#endif  // CTATTN_POSITION_ALIBI_HPP
