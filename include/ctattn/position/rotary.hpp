// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_POSITION_ROTARY_HPP
#define CTATTN_POSITION_ROTARY_HPP

/// \file
/// Rotary position embedding (RoPE, Su et al., "RoFormer"): queries and keys rotated in 2-D planes by an angle
/// proportional to their position, so that their dot product depends on positions only through the offset.

#include <cstddef>

#include "ctattn/detail/config.hpp"
#include "ctattn/math/sin_cos.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/position/detail/frequency.hpp"
#include "ctattn/position/rules.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

/// Which features RoPE rotates together. Both rotate pair p by the angle t * Base^(-2p/d) at position t; they
/// differ in which two columns form pair p (one is a fixed permutation of the other, so weights trained for one
/// layout do not work with the other).
///
/// | layout        | pair p         | used by                                  |
/// |---------------|----------------|------------------------------------------|
/// | `interleaved` | (2p, 2p + 1)   | the RoFormer paper, GPT-J, Meta's Llama reference code |
/// | `rotate_half` | (p, p + d/2)   | GPT-NeoX, Hugging Face's Llama (`rotate_half`) |
///
/// Example: `ctattn::apply_rotary<ctattn::rotary_layout::rotate_half>(queries, table)`.
enum class rotary_layout { interleaved, rotate_half };

/// The cosines and sines RoPE rotates by, one row per position: `cos_table(t, p) = cos(t * theta_p)` and
/// `sin_table(t, p) = sin(t * theta_p)`, with theta_p = Base^(-2p / Width).
///
/// | member                  | shape / meaning                                   |
/// |-------------------------|---------------------------------------------------|
/// | `cos_table`, `sin_table`| Positions x Width/2                               |
/// | `positions`             | how many positions the table covers (0 .. Positions-1) |
/// | `width`                 | the head width d it rotates (even)                |
/// | `base`                  | Base (10000 in the paper)                         |
///
/// Build it with `make_rotary_table` (at compile time, as a `constexpr` variable). It is an aggregate of two
/// matrices and can sit in flash.
///
/// Example (Clang 14's default constexpr budget holds up to 104 positions of width 64; docs/compile_time.md says how
/// to raise it):
/// \code
///   static constexpr auto rope = ctattn::make_rotary_table<float, 96, 64>();   // 96 positions, d = 64
/// \endcode
template <typename T, std::size_t Positions, std::size_t Width, std::size_t Base = 10000>
  requires Scalar<T>
struct rotary_table {
  /// The rules of the table's parameters.
  using rules = rule_list<shape_error::dimension_must_be_even<op::rotary_embedding, dim_of<Width>>,
                          shape_error::count_must_be_positive<op::rotary_embedding, count<Positions>>,
                          shape_error::base_must_be_larger_than_one<op::rotary_embedding, count<Base>>>;
  static_assert((detail::first_broken<rules>::check(), true));

  using value_type = T;
  static constexpr std::size_t positions = Positions;
  static constexpr std::size_t width = Width;
  static constexpr std::size_t pairs = Width / 2 > 0 ? Width / 2 : 1;
  static constexpr std::size_t base = Base;

  matrix<T, Positions, pairs> cos_table;
  matrix<T, Positions, pairs> sin_table;
};

/// Computes a `rotary_table`: every angle t / Base^(2p / Width) in double, its cosine and sine with
/// ctattn::math in double, each rounded once to T.
///
/// | parameter   | meaning                                          |
/// |-------------|--------------------------------------------------|
/// | `T`         | `float` or `double`                              |
/// | `Positions` | positions 0 .. Positions-1                       |
/// | `Width`     | the head width d of the queries and keys (even)  |
/// | `Base`      | 10000 in the paper                               |
///
/// Rule: Width is even (`shape_error::dimension_must_be_even<op::rotary_embedding, dim<unnamed, Width>>`).
///
/// Example:
/// \code
///   constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
///   static_assert(rope.cos_table(0, 3) == 1.0f);   // position 0 is not rotated
/// \endcode
// Rationale: the angle is divided by Base^(2p/d) rather than multiplied by Base^(-2p/d), the same form as the
// sinusoidal encoding; computed in double, both agree with a float64 reference after rounding to float.
template <typename T, std::size_t Positions, std::size_t Width, std::size_t Base = 10000>
  requires Scalar<T>
[[nodiscard]] constexpr rotary_table<T, Positions, Width, Base> make_rotary_table() noexcept {
  rotary_table<T, Positions, Width, Base> table{};
  if constexpr (rules_hold<typename rotary_table<T, Positions, Width, Base>::rules>) {
    for (std::size_t p = 0; p < Width / 2; ++p) {
      const double power = detail::frequency_power(p, Width, Base);
      for (std::size_t t = 0; t < Positions; ++t) {
        const double angle = static_cast<double>(t) / power;
        table.cos_table.elements[t][p] = static_cast<T>(math::cos(angle));
        table.sin_table.elements[t][p] = static_cast<T>(math::sin(angle));
      }
    }
  }
  return table;
}

namespace detail {
// Rationale: GCC 12's loop vectorizer recognizes a*c - b*s, a*s + b*c as a complex multiplication and emits fused
// multiply-adds (vfmaddsub) despite -ffp-contract=off (seen at -O2 with -mavx2 -mfma: run-time rotations then
// differed from constant evaluation's in the last bit). The rotation is therefore never loop-vectorized by GCC: the
// attribute also keeps it from being inlined into a loop that would be.
#if defined(__GNUC__) && !defined(__clang__)
#define CTATTN_DETAIL_ROTATION_NOT_VECTORIZED [[gnu::optimize("no-tree-loop-vectorize", "no-tree-slp-vectorize")]]
#else
#define CTATTN_DETAIL_ROTATION_NOT_VECTORIZED
#endif

// Rotates the Width columns of `row` from `first` by position t's angles, pair p as the layout pairs them.
template <rotary_layout Layout, std::size_t Width, typename T, typename Table>
CTATTN_DETAIL_ROTATION_NOT_VECTORIZED constexpr void rotate_row(T* row, std::size_t first, const Table& table,
                                                                std::size_t t) noexcept {
  constexpr std::size_t half = Width / 2;
  for (std::size_t p = 0; p < half; ++p) {
    const std::size_t a = first + (Layout == rotary_layout::interleaved ? 2 * p : p);
    const std::size_t b = first + (Layout == rotary_layout::interleaved ? 2 * p + 1 : p + half);
    const T c = table.cos_table.elements[t][p];
    const T s = table.sin_table.elements[t][p];
    const T xa = row[a];
    const T xb = row[b];
    row[a] = xa * c - xb * s;
    row[b] = xa * s + xb * c;
  }
}

// The two columns of pair p of a head of Width columns, from the head's first column, as the layout pairs them
// (`rotary_layout`): the pairing of `rotate_row`, for rotations in other arithmetic (the int8 one of
// ctattn/quantized/llama.hpp).
struct rotary_pair_columns {
  std::size_t a;
  std::size_t b;
};
template <rotary_layout Layout, std::size_t Width>
[[nodiscard]] constexpr rotary_pair_columns rotary_pair(std::size_t p) noexcept {
  return Layout == rotary_layout::interleaved ? rotary_pair_columns{2 * p, 2 * p + 1}
                                              : rotary_pair_columns{p, p + Width / 2};
}

// Rotates every head of `x` in place (each Width = HeadDim columns, head h from column h * HeadDim), row r at
// position first_position + r: the queries or keys of multi-head and grouped-query attention. The rules and the
// precondition first_position + rows <= the table's positions are the caller's.
template <rotary_layout Layout, std::size_t HeadDim, typename M, typename Table>
constexpr void rotate_heads(M& x, const Table& table, std::size_t first_position) noexcept {
  for (std::size_t r = 0; r < M::rows; ++r) {
    for (std::size_t first = 0; first + HeadDim <= M::cols; first += HeadDim) {
      rotate_row<Layout, HeadDim>(&x.elements[r][0], first, table, first_position + r);
    }
  }
}
}  // namespace detail

/// Rotates every row of `x` (queries or keys, one per row) by its position: row r is at position
/// `first_position + r`. For pair p = (a, b) of the layout, with c = cos_table(t, p) and s = sin_table(t, p):
///
///     out[a] = x[a] c - x[b] s
///     out[b] = x[a] s + x[b] c
///
/// | operand          | shape                                          |
/// |------------------|------------------------------------------------|
/// | `x`              | N x D (queries or keys of one head)            |
/// | `table`          | `rotary_table<T, Positions, Width>`            |
/// | `first_position` | position of row 0 (default 0; a KV cache passes the number of tokens before) |
/// | result           | N x D, the same type as `x`                    |
///
/// Rules (compile time): D equals the table's Width (`columns_must_match`; the table's Width is even),
/// N <= Positions (`sequence_must_fit_position_table`), same element type. Precondition (run time):
/// first_position + N <= Positions.
///
/// Apply it to the queries and to the keys with the same table and layout, before the scores Q K^T.
///
/// Example:
/// \code
///   static constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
///   const auto q_rot = ctattn::apply_rotary<ctattn::rotary_layout::interleaved>(q, rope);   // q: 6 x 8
///   const auto k_rot = ctattn::apply_rotary<ctattn::rotary_layout::interleaved>(k, rope);
///   const auto scores = q_rot * ctattn::transpose(k_rot);
/// \endcode
template <rotary_layout Layout, typename T, auto N, auto D, typename U, std::size_t Positions, std::size_t Width,
          std::size_t Base>
[[nodiscard]] constexpr basic_matrix<T, N, D> apply_rotary(const basic_matrix<T, N, D>& x,
                                                           const rotary_table<U, Positions, Width, Base>& table,
                                                           std::size_t first_position = 0) noexcept {
  using x_type = basic_matrix<T, N, D>;
  using rules =
      rule_list<typename rotary_table<U, Positions, Width, Base>::rules,
                shape_error::element_types_must_match<op::rotary_embedding, T, U>,
                shape_error::columns_must_match<op::rotary_embedding, dim_of<D>, dim_of<Width>>,
                shape_error::sequence_must_fit_position_table<op::rotary_embedding, dim_of<N>, dim_of<Positions>>>;
  basic_matrix<T, N, D> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    detail::expects(first_position <= Positions - x_type::rows);
    result = x;
    detail::rotate_heads<Layout, x_type::cols>(result, table, first_position);
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_POSITION_ROTARY_HPP
