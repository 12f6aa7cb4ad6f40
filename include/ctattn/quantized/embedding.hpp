// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_EMBEDDING_HPP
#define CTATTN_QUANTIZED_EMBEDDING_HPP

/// \file
/// Embeddings and the other first layers of a model in int8, quantized from the layers tier's float layers
/// (ctattn/layers/embedding.hpp): token and position tables, a class token.
///
/// | entity                                            | what                                                  |
/// |---------------------------------------------------|-------------------------------------------------------|
/// | `qembedding<Vocabulary, Length, Width, QTokens, QPositions, QOut[, Value]>` | token and position tables in int8 (or int16, 16x8), summed |
/// | `quantize_embedding<QTokens, QPositions, QOut[, std::int16_t]>(tokens, positions)` | the float embeddings quantized |
/// | `qtoken_embedding<Vocabulary, Width, Q>`, `quantize_token_embedding<Q>(tokens)` | a token table alone in int8 |
/// | `qposition_embedding<Length, Width, QPositions, QOut[, Value]>`, `quantize_position_embedding<QPositions, QOut[, std::int16_t]>(p)` | positions added to int8 (or int16) rows |
/// | `qclass_token<Width, QIn, QOut[, Value]>`, `quantize_class_token<QIn, QOut[, std::int16_t]>(token)` | a class token before int8 (or int16) rows |

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/quantized/add.hpp"
#include "ctattn/quantized/int16.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

// The float layers (ctattn/layers/embedding.hpp), declared, not included.
// Rationale: the layers tier needs Boost.Hana and the core does not; quantizing reads the layers' members only, and
// their types are complete wherever a user names them.
template <typename T, std::size_t Vocabulary, auto D>
struct token_embedding;
struct embedding_weight;
template <typename T, std::size_t MaxLength, auto D, typename Held>
struct position_embedding;
template <typename T, auto D>
struct class_token;

/// Token and position embeddings in int8: the token table (Vocabulary x Width, quantized with QTokens), the
/// position table (Length x Width, QPositions), and their sum for each token by the int8 ADD, quantized with QOut.
/// With `Value` `std::int16_t` (16x8): both tables int16 (zero point 0, as TFLite's 16x8 mode keeps a constant
/// that is not a weight) and the sum TFLite's int16 ADD.
///
/// | operand        | shape                                         |
/// |----------------|-----------------------------------------------|
/// | `forward(ids)` | N token ids (N <= Length) -> `qmatrix<N, Width, QOut>` (16x8: `q16matrix`) |
///
/// A token id outside [0, Vocabulary) is a contract violation (ctattn/detail/config.hpp's `expects`).
///
/// Example: `const auto x = embedding_q.forward(std::array<int, 6>{3, 1, 4, 1, 5, 9});`
template <std::size_t Vocabulary, std::size_t Length, auto Width, quantization QTokens, quantization QPositions,
          quantization QOut, detail::quantized_value Value = std::int8_t>
struct qembedding {
  using value_type = Value;
  static constexpr bool int16 = std::same_as<Value, std::int16_t>;
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = QOut;
  detail::basic_quantized_matrix<Value, Vocabulary, normalize_extent<Width>, QTokens> tokens{};
  detail::basic_quantized_matrix<Value, Length, normalize_extent<Width>, QPositions> positions{};

  // Rationale: the return type named, as the quantized tier's functions name theirs: Clang 14 then builds the result
  // where the caller wants it rather than copying it out.
  template <std::integral I, std::size_t N>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids) const noexcept
      -> detail::basic_quantized_matrix<Value, N, normalize_extent<Width>, QOut> {
    static_assert(N <= Length, "ctattn: a sequence longer than the position table; make the table longer");
    detail::basic_quantized_matrix<Value, N, normalize_extent<Width>, QOut> out;
    constexpr std::size_t width = extent_size(Width);
    for (std::size_t i = 0; i < N; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      detail::expects(id < Vocabulary);
      if constexpr (int16) {
        using k = detail::int16_add_constants<QTokens, QPositions, QOut>;
        static_assert(
            (detail::first_broken<detail::int16_add_rules<basic_q16matrix<1, Width, QTokens>,
                                                          basic_q16matrix<1, Width, QPositions>, QOut>>::check(),
             true));
        std::int16_t a[1][width];
        std::int16_t b[1][width];
        std::int16_t sum[1][width];
        for (std::size_t c = 0; c < width; ++c) {
          a[0][c] = tokens.elements[id][c];
          b[0][c] = positions.elements[i][c];
        }
        detail::kernels::int16_add_rows<k::a, k::b, k::out>(a, b, sum);
        for (std::size_t c = 0; c < width; ++c) out.elements[i][c] = sum[0][c];
      } else {
        using k = detail::quantized_add_constants<QTokens, QPositions, QOut>;
        // Rationale: each token's row and its position's row are added where they are, in the tables (flash), into
        // the result's row: no copy of them on the stack first.
        detail::kernels::int8_add_row<k::a, k::b, k::left_shift, k::out>(tokens.elements[id], QTokens.zero_point,
                                                                         positions.elements[i], QPositions.zero_point,
                                                                         QOut.zero_point, out.elements[i]);
      }
    }
    return out;
  }

  /// The memory of `forward(ids)` on an `Ids` (`std::array<I, N>`; ctattn::footprint, `ctattn::layer_footprint`):
  /// the two tables, the ids and the result; no stack in int8 (each sum reads its rows from the tables), three rows
  /// in 16x8.
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qembedding), sizeof(Ids), sizeof(Value) * std::tuple_size_v<Ids> * extent_size(Width), 0,
            int16 ? 3 * sizeof(Value) * extent_size(Width) : 0};
  }

  friend constexpr bool operator==(const qembedding&, const qembedding&) = default;
};

/// A token embedding in int8 without positions after it: the table (Vocabulary x Width) quantized with Q, and each
/// token's row looked up, so the output has the table's quantization.
///
/// | operand        | shape                                   |
/// |----------------|-----------------------------------------|
/// | `forward(ids)` | N token ids -> `qmatrix<N, Width, Q>`   |
///
/// A token id outside [0, Vocabulary) is a contract violation (ctattn/detail/config.hpp's `expects`).
///
/// Example: `const auto x = ctattn::quantize_token_embedding<q_table>(model.embed).forward(std::array<int, 3>{2, 7, 1});`
template <std::size_t Vocabulary, auto Width, quantization Q>
struct qtoken_embedding {
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = Q;
  qmatrix<Vocabulary, Width, Q> tokens{};

  template <std::integral I, std::size_t N>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids) const noexcept -> qmatrix<N, Width, Q> {
    qmatrix<N, Width, Q> out;
    for (std::size_t i = 0; i < N; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      detail::expects(id < Vocabulary);
      for (std::size_t c = 0; c < qmatrix<N, Width, Q>::cols; ++c) out.elements[i][c] = tokens.elements[id][c];
    }
    return out;
  }

  /// The memory of `forward(ids)` on an `Ids` (`std::array<I, N>`): the table, the ids and the result; no stack.
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qtoken_embedding), sizeof(Ids), std::tuple_size_v<Ids> * extent_size(Width), 0, 0};
  }

  friend constexpr bool operator==(const qtoken_embedding&, const qtoken_embedding&) = default;
};

/// The float `token_embedding` quantized alone (no position embedding after it): its table with Q.
///
/// Example: `constexpr auto e = ctattn::quantize_token_embedding<q_table>(model.embed);`
template <quantization Q, typename T, std::size_t Vocabulary, auto D>
[[nodiscard]] constexpr auto quantize_token_embedding(const token_embedding<T, Vocabulary, D>& tokens) noexcept {
  qtoken_embedding<Vocabulary, normalize_extent<D>, Q> q{};
  q.tokens = quantize<Q>(tokens.weight);
  return q;
}

/// Learned positions added to int8 rows (a `position_embedding` after a layer other than a token embedding): row i
/// of x plus row i of the position table (quantized with QPositions) by the int8 ADD, quantized with QOut. With
/// `Value` `std::int16_t` (16x8): int16 rows, the table int16, the sum TFLite's int16 ADD.
///
/// | operand       | shape                                                        |
/// |---------------|--------------------------------------------------------------|
/// | `forward(x)`  | `qmatrix<N, Width, Q(x)>` (N <= Length) -> `qmatrix<N, Width, QOut>` (16x8: `q16matrix`s) |
///
/// Example: `const auto y = ctattn::quantize_position_embedding<q_table, q_out>(model.pos).forward(x_q);`
template <std::size_t Length, auto Width, quantization QPositions, quantization QOut,
          detail::quantized_value Value = std::int8_t>
struct qposition_embedding {
  using value_type = Value;
  static constexpr bool int16 = std::same_as<Value, std::int16_t>;
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = QOut;
  detail::basic_quantized_matrix<Value, Length, normalize_extent<Width>, QPositions> positions{};

  template <detail::AnyQuantizedMatrix X>
    requires std::same_as<typename X::value_type, Value>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept
      -> detail::basic_quantized_matrix<Value, X::row_extent, Width, QOut> {
    static_assert(X::rows <= Length, "ctattn: a sequence longer than the position table; make the table longer");
    detail::basic_quantized_matrix<Value, X::row_extent, Width, QOut> out;
    if constexpr (int16) {
      // Rationale: the int16 ADD of x and the table's first n rows, whole matrices as the kernel takes them.
      using rows_type = basic_q16matrix<X::row_extent, Width, QPositions>;
      static_assert((detail::first_broken<detail::int16_add_rules<X, rows_type, QOut>>::check(), true));
      using k = detail::int16_add_constants<X::quant, QPositions, QOut>;
      rows_type rows;
      for (std::size_t i = 0; i < X::rows; ++i) {
        for (std::size_t c = 0; c < X::cols; ++c) rows.elements[i][c] = positions.elements[i][c];
      }
      detail::kernels::int16_add_rows<k::a, k::b, k::out>(x.elements, rows.elements, out.elements);
    } else {
      using k = detail::quantized_add_constants<X::quant, QPositions, QOut>;
      for (std::size_t i = 0; i < X::rows; ++i) {
        detail::kernels::int8_add_row<k::a, k::b, k::left_shift, k::out>(x.elements[i], X::quant.zero_point,
                                                                         positions.elements[i], QPositions.zero_point,
                                                                         QOut.zero_point, out.elements[i]);
      }
    }
    return out;
  }
  /// Rows of the other width: not a call; the build stops with `quantized_operands_must_have_one_width`'s sentence.
  template <detail::AnyQuantizedMatrix X>
    requires(!std::same_as<typename X::value_type, Value>)
  constexpr auto forward(const X&) const noexcept {
    return detail::refuse_quantized_operation<op::quantized_front_end, X, decltype(positions)>();
  }

  /// The memory of `forward(x)` on an X: the table, X and the result; no stack in int8, the table's n rows in 16x8.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using result = detail::basic_quantized_matrix<Value, X::row_extent, Width, QOut>;
    return {sizeof(qposition_embedding), sizeof(X), sizeof(result), 0, int16 ? sizeof(result) : 0};
  }

  friend constexpr bool operator==(const qposition_embedding&, const qposition_embedding&) = default;
};

/// The float `position_embedding` (or `position_parameter`) quantized alone: its table with QPositions, the sum with
/// QOut; int8 (`Value` `std::int8_t`, the default) or 16x8 (`Value` `std::int16_t`: the table int16, the sum by
/// TFLite's int16 ADD).
///
/// Example: `constexpr auto p = ctattn::quantize_position_embedding<q_table, q_out>(model.pos);`, or in 16x8
/// `ctattn::quantize_position_embedding<q_table16, q_out16, std::int16_t>(model.pos)`.
template <quantization QPositions, quantization QOut, detail::quantized_value Value = std::int8_t, typename T,
          std::size_t Length, auto D, typename Held>
[[nodiscard]] constexpr auto quantize_position_embedding(
    const position_embedding<T, Length, D, Held>& positions) noexcept {
  qposition_embedding<Length, normalize_extent<D>, QPositions, QOut, Value> q{};
  q.positions = quantize<QPositions, Value>(positions.weight);
  return q;
}

/// The float `token_embedding` and `position_embedding` quantized: each table with its quantization, their sum with
/// QOut; int8 (`Value` `std::int8_t`, the default) or 16x8 (`Value` `std::int16_t`: both tables int16, zero points 0,
/// the sum by TFLite's int16 ADD).
///
/// Example: `constexpr auto e = ctattn::quantize_embedding<q_tokens, q_positions, q_x>(model.embed, model.pos);`, or
/// in 16x8 `ctattn::quantize_embedding<q_tokens16, q_positions16, q_x16, std::int16_t>(model.embed, model.pos)`.
template <quantization QTokens, quantization QPositions, quantization QOut, detail::quantized_value Value = std::int8_t,
          typename T, std::size_t Vocabulary, auto D, std::size_t Length, auto D2, typename Held>
[[nodiscard]] constexpr auto quantize_embedding(const token_embedding<T, Vocabulary, D>& tokens,
                                                const position_embedding<T, Length, D2, Held>& positions) noexcept {
  qembedding<Vocabulary, Length, normalize_extent<D>, QTokens, QPositions, QOut, Value> q{};
  q.tokens = quantize<QTokens, Value>(tokens.weight);
  q.positions = quantize<QPositions, Value>(positions.weight);
  return q;
}

/// A class token before int8 rows: row 0 the token, quantized with QOut; rows 1 to n the rows of x, requantized from
/// QIn to QOut (copied as they are when the two are equal), as TFLite's CONCATENATION requantizes an input whose
/// quantization is not the output's. With `Value` `std::int16_t` (16x8): int16 rows and token, each row
/// requantized as TFLite's int16 QUANTIZE does (mbqm by QIn.scale / QOut.scale, clamped to int16).
///
/// | operand      | shape                                          |
/// |--------------|------------------------------------------------|
/// | `forward(x)` | `qmatrix<n, Width, QIn>` -> `qmatrix<n + 1, Width, QOut>` (16x8: `q16matrix`s) |
///
/// Example: `const auto tokens = ctattn::quantize_class_token<q_in, q_out>(model.cls_token).forward(x_q);`
template <auto Width, quantization QIn, quantization QOut, detail::quantized_value Value = std::int8_t>
struct qclass_token {
  using value_type = Value;
  static constexpr bool int16 = std::same_as<Value, std::int16_t>;
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = QOut;
  detail::basic_quantized_matrix<Value, std::size_t{1}, normalize_extent<Width>, QOut> token{};

  template <detail::AnyQuantizedMatrix X>
    requires std::same_as<typename X::value_type, Value>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept
      -> detail::basic_quantized_matrix<Value, X::rows + 1, Width, QOut> {
    using input_rule =
        shape_error::input_quantization_must_match_layer<op::quantized_front_end, quantization_constant<X::quant>,
                                                         quantization_constant<QIn>>;
    static_assert((input_rule::check(), true));
    detail::basic_quantized_matrix<Value, X::rows + 1, Width, QOut> y;
    for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] = token.elements[0][j];
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t j = 0; j < X::cols; ++j) y.elements[r + 1][j] = row_element(x.elements[r][j]);
    }
    return y;
  }
  /// Rows of the other width: not a call; the build stops with `quantized_operands_must_have_one_width`'s sentence.
  template <detail::AnyQuantizedMatrix X>
    requires(!std::same_as<typename X::value_type, Value>)
  constexpr auto forward(const X&) const noexcept {
    return detail::refuse_quantized_operation<op::quantized_front_end, X, decltype(token)>();
  }

  /// The memory of `forward(x)` on an X: the token, X and the result; no stack.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qclass_token), sizeof(X), sizeof(detail::basic_quantized_matrix<Value, X::rows + 1, Width, QOut>), 0,
            0};
  }

  friend constexpr bool operator==(const qclass_token&, const qclass_token&) = default;

 private:
  // One element of x in QOut: as it is where QIn is QOut; else requantized as TFLite's CONCATENATION (int8) or its
  // int16 QUANTIZE (16x8: mbqm by QIn.scale / QOut.scale, clamped to int16; rule: the ratio below 2^15).
  [[nodiscard]] static constexpr Value row_element(Value q) noexcept {
    if constexpr (QIn == QOut) {
      return q;
    } else if constexpr (int16) {
      static_assert((detail::first_broken<typename detail::conversion<QIn, QOut>::rules>::check(), true));
      constexpr math::quantized_multiplier m = detail::conversion_multiplier<QIn, QOut>;
      constexpr detail::kernels::output_requantizer scale{m.multiplier, m.shift, 0};
      return detail::kernels::saturate_to<std::int16_t>(scale.scaled(q));
    } else {
      constexpr math::quantized_multiplier m = math::quantize_multiplier(QIn.scale() / QOut.scale());
      return detail::kernels::requantize(std::int32_t{q} - QIn.zero_point, m, QOut.zero_point);
    }
  }
};

/// The float `class_token` quantized: the token with QOut, for rows quantized with QIn; int8 (`Value` `std::int8_t`,
/// the default) or 16x8 (`Value` `std::int16_t`: the token int16, for int16 rows).
///
/// Example: `constexpr auto cls_q = ctattn::quantize_class_token<q_patches, q_tokens>(model.cls_token);`, or in 16x8
/// `ctattn::quantize_class_token<q_patches16, q_tokens16, std::int16_t>(model.cls_token)`.
template <quantization QIn, quantization QOut, detail::quantized_value Value = std::int8_t, typename T, auto D>
[[nodiscard]] constexpr auto quantize_class_token(const class_token<T, D>& layer) noexcept {
  qclass_token<normalize_extent<D>, QIn, QOut, Value> q{};
  q.token = quantize<QOut, Value>(layer.token);
  return q;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_EMBEDDING_HPP
