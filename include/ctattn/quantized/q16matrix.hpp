// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_Q16MATRIX_HPP
#define CTATTN_QUANTIZED_Q16MATRIX_HPP

/// \file
/// `ctattn::q16matrix`: an int16 matrix with its quantization in its type (TFLite's 16x8 activations: symmetric,
/// zero point 0), and the conversions TFLite's QUANTIZE makes: float to int16, int8 to int16 and int16 to int8
/// (`ctattn::quantize`), and back to float (`ctattn::dequantize`); `ctattn::qconversion`, the conversion between
/// the widths as a layer (what `ctattn::quantize` puts between an int8 layer and a 16x8 one).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int16.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/quantization.hpp"
#include "ctattn/quantized/rules.hpp"
#include "ctattn/shape/dimension.hpp"

namespace ctattn {

/// A fixed-size, row-major int16 matrix quantized with Q: element (r, c) stands for Q.scale() x elements[r][c].
/// Dimensions as in `ctattn::matrix` (sizes or named extents). Usually written `ctattn::q16matrix<Rows, Cols, Q>`.
///
/// | member                | meaning                                                        |
/// |-----------------------|----------------------------------------------------------------|
/// | `value_type`          | `std::int16_t`                                                 |
/// | `quantization_type`   | `quantization_constant<Q>`; `quant` is Q itself                |
/// | `row_extent`, `column_extent`, `rows`, `cols`, `size` | as `ctattn::matrix`            |
/// | `elements[r][c]`      | the int16 storage (`q16matrix q{}` zeros it, `q16matrix q;` leaves it uninitialized) |
/// | `(r, c)`              | element access                                                 |
/// | `real(r, c)`          | the real value it stands for, as a double                      |
///
/// Rules: the scale is positive and finite (`scale_must_be_positive`), the zero point 0
/// (`int16_zero_point_must_be_zero`: TFLite's 16x8 tensors are symmetric).
///
/// Example:
/// \code
///   constexpr ctattn::q16matrix<1, 2, ctattn::quantization{0.001}> q{{{1000, -32768}}};
///   static_assert(q.real(0, 0) == 1.0 && q.real(0, 1) == -32.768);
/// \endcode
template <auto Rows, auto Cols, quantization Q>
struct basic_q16matrix {
  static_assert((detail::first_broken<detail::int16_quantization_rules<Q>>::check(), true));
  using value_type = std::int16_t;
  using quantization_type = quantization_constant<Q>;
  static constexpr quantization quant = Q;
  static constexpr auto row_extent = Rows;
  static constexpr auto column_extent = Cols;
  static constexpr std::size_t rows = extent_size(Rows);
  static constexpr std::size_t cols = extent_size(Cols);
  static constexpr std::size_t size = rows * cols;

  // Rationale: no default member initializer, as `basic_qmatrix` (every int16 operation writes its whole result).
  std::int16_t elements[rows][cols];

  [[nodiscard]] constexpr std::int16_t& operator()(std::size_t r, std::size_t c) noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr std::int16_t operator()(std::size_t r, std::size_t c) const noexcept {
    return elements[r][c];
  }
  [[nodiscard]] constexpr double real(std::size_t r, std::size_t c) const noexcept {
    return Q.scale() * static_cast<double>(elements[r][c]);
  }

  friend constexpr bool operator==(const basic_q16matrix&, const basic_q16matrix&) = default;
};

/// `q16matrix<Rows, Cols, Q>`: extents normalized, as `ctattn::matrix`.
template <auto Rows, auto Cols, quantization Q>
using q16matrix = basic_q16matrix<normalize_extent<Rows>, normalize_extent<Cols>, Q>;

namespace detail {
template <typename T>
struct is_basic_q16matrix : std::false_type {};
template <auto R, auto C, quantization Q>
struct is_basic_q16matrix<basic_q16matrix<R, C, Q>> : std::true_type {};
}  // namespace detail

/// An int16 quantized matrix (any `q16matrix`).
template <typename M>
concept Quantized16Matrix = detail::is_basic_q16matrix<std::remove_cvref_t<M>>::value;

namespace detail {
// A quantized matrix of either width.
template <typename M>
concept AnyQuantizedMatrix = QuantizedMatrix<M> || Quantized16Matrix<M>;

// The element type of a quantized layer's activations: int8, or int16 (16x8).
template <typename T>
concept quantized_value = std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t>;

// The quantized matrix of Value elements: `basic_qmatrix` (int8) or `basic_q16matrix` (int16).
template <quantized_value Value, auto Rows, auto Cols, quantization Q>
using basic_quantized_matrix =
    std::conditional_t<std::same_as<Value, std::int16_t>, basic_q16matrix<Rows, Cols, Q>, basic_qmatrix<Rows, Cols, Q>>;

// A quantized matrix's type with Rows rows (its columns, quantization and width kept).
// Rationale: a class, not `basic_quantized_matrix<typename M::value_type, Rows, M::column_extent, M::quant>`, which
// GCC 12 crashes on (a quantization argument taken from a type, substituted into an alias).
template <typename M, auto Rows>
struct with_rows;
template <auto R, auto C, quantization Q, auto Rows>
struct with_rows<basic_qmatrix<R, C, Q>, Rows> {
  using type = basic_qmatrix<Rows, C, Q>;
};
template <auto R, auto C, quantization Q, auto Rows>
struct with_rows<basic_q16matrix<R, C, Q>, Rows> {
  using type = basic_q16matrix<Rows, C, Q>;
};

// The rules of a quantization for Value elements: `quantization_rules` (int8) or `int16_quantization_rules`.
template <quantized_value Value, quantization Q>
using value_quantization_rules =
    std::conditional_t<std::same_as<Value, std::int16_t>, int16_quantization_rules<Q>, quantization_rules<Q>>;

// One int8 and one int16 operand.
template <typename A, typename B>
concept MixedWidths = (QuantizedMatrix<A> && Quantized16Matrix<B>) || (Quantized16Matrix<A> && QuantizedMatrix<B>);

// One quantized operand (either width) and one float matrix.
template <typename A, typename B>
concept QuantizedAndFloat = (AnyQuantizedMatrix<A> && FixedMatrix<B>) || (FixedMatrix<A> && AnyQuantizedMatrix<B>);

// Stops the build at a quantized operation that cannot be, with the rule that says why: an int8 and an int16 operand
// (`quantized_operands_must_have_one_width`), a float operand (`int8_operands_must_both_be_int8`), or an operator or
// a product with no output quantization on two quantized matrices (`int8_operation_needs_output_quantization`).
// It returns the quantized operand's type, so that the refused call's result, held by the caller (`const auto c = a +
// b;`), adds no error of its own before the rule's.
template <typename Operation, typename A, typename B>
constexpr auto refuse_quantized_operation() noexcept {
  if constexpr (MixedWidths<A, B>) {
    static_assert((shape_error::quantized_operands_must_have_one_width<Operation, A, B>::check(), true));
  } else if constexpr (AnyQuantizedMatrix<A> && AnyQuantizedMatrix<B>) {
    static_assert((shape_error::int8_operation_needs_output_quantization<Operation, A, B>::check(), true));
  } else {
    static_assert((shape_error::int8_operands_must_both_be_int8<Operation, A, B>::check(), true));
  }
  return std::conditional_t<AnyQuantizedMatrix<A>, A, B>{};
}
}  // namespace detail

/// x quantized to int16 with Q, TFLite's QUANTIZE to an int16 tensor: q = clamp(round(x / scale), -32768, 32767),
/// ties away from zero, the division in float32 for float x and a float32 scale (as `quantize<Q>(x)` to int8).
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `x`     | R x C, float or double             |
/// | result  | `q16matrix<R, C, Q>` (x's extents) |
///
/// Example:
/// \code
///   constexpr auto q = ctattn::quantize<ctattn::quantization{0.001}, std::int16_t>(
///       ctattn::matrix<float, 1, 3>{{{1.0f, -0.003f, 100}}});
///   static_assert(q(0, 0) == 1000 && q(0, 1) == -3 && q(0, 2) == 32767);
/// \endcode
template <quantization Q, std::same_as<std::int16_t> T, FixedMatrix X>
[[nodiscard]] constexpr auto quantize(const X& x) noexcept -> basic_q16matrix<X::row_extent, X::column_extent, Q> {
  basic_q16matrix<X::row_extent, X::column_extent, Q> q;
  for (std::size_t r = 0; r < X::rows; ++r) {
    for (std::size_t c = 0; c < X::cols; ++c) {
      const std::int64_t v = detail::rounded_quotient(x.elements[r][c], Q.scale());
      q.elements[r][c] = static_cast<std::int16_t>(v < -32768 ? -32768 : (v > 32767 ? 32767 : v));
    }
  }
  return q;
}

namespace detail {
/// Whether a multiplier's shift is at most `largest` (its real value below 2^largest).
constexpr bool shift_at_most(double real, int largest) noexcept {
  return math::quantize_multiplier(real).shift <= largest;
}

/// TFLite's QUANTIZE from one quantized tensor to another: the multiplier in_scale / out_scale, in double, below
/// 2^15 so that no value shifted by it leaves the int32 range.
template <quantization In, quantization Out>
inline constexpr math::quantized_multiplier conversion_multiplier = math::quantize_multiplier(In.scale() / Out.scale());

// Rationale: a class, not an alias template: GCC 12 crashes substituting a quantization argument taken from a type
// (`X::quant`) into an alias's expression.
template <quantization In, quantization Out>
struct conversion {
  static constexpr bool fits = shift_at_most(In.scale() / Out.scale(), 15);
  using rules =
      rule_list<shape_error::int16_scales_must_suit_the_kernel<op::int16_conversion, fits, quantization_constant<In>,
                                                               quantization_constant<Out>>>;
};
}  // namespace detail

/// An int8 matrix brought to int16 with Q, TFLite's QUANTIZE from an int8 tensor to an int16 one (a 16x8 model's
/// input, or an int8 part feeding an int16 one): q = clamp(mbqm(q8 - zero_point, in_scale / out_scale), -32768,
/// 32767), `math::multiply_by_quantized_multiplier`'s rounding. Rule: in_scale / out_scale below 2^15
/// (`int16_scales_must_suit_the_kernel`).
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `q8`    | `qmatrix<R, C, QIn>`               |
/// | result  | `q16matrix<R, C, Q>` (q8's extents) |
///
/// Example: `const auto h16 = ctattn::quantize<ctattn::quantization{0.0005}, std::int16_t>(h8);`
template <quantization Q, std::same_as<std::int16_t> T, QuantizedMatrix X>
[[nodiscard]] constexpr auto quantize(const X& q8) noexcept -> basic_q16matrix<X::row_extent, X::column_extent, Q> {
  basic_q16matrix<X::row_extent, X::column_extent, Q> q;
  if constexpr (detail::first_broken<typename detail::conversion<X::quant, Q>::rules>::check()) {
    detail::kernels::convert_rows<detail::conversion_multiplier<X::quant, Q>>(q8.elements, X::quant.zero_point, 0,
                                                                              q.elements);
  }
  return q;
}

/// An int16 matrix brought to int8 with Q, TFLite's QUANTIZE from an int16 tensor to an int8 one: q =
/// clamp(mbqm(q16, in_scale / out_scale) + zero_point, -128, 127). Rule: in_scale / out_scale below 2^15.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `q16`   | `q16matrix<R, C, QIn>`             |
/// | result  | `qmatrix<R, C, Q>` (q16's extents) |
///
/// Example: `const auto h8 = ctattn::quantize<ctattn::quantization{0.05, -3}>(h16);`
template <quantization Q, Quantized16Matrix X>
[[nodiscard]] constexpr auto quantize(const X& q16) noexcept -> basic_qmatrix<X::row_extent, X::column_extent, Q> {
  basic_qmatrix<X::row_extent, X::column_extent, Q> q;
  if constexpr (detail::first_broken<typename detail::conversion<X::quant, Q>::rules>::check()) {
    detail::kernels::convert_rows<detail::conversion_multiplier<X::quant, Q>>(q16.elements, 0, Q.zero_point,
                                                                              q.elements);
  }
  return q;
}

/// TFLite's QUANTIZE between an int8 activation and an int16 one as a layer (the layer protocol's verbs): where a
/// model mixes the widths, `ctattn::quantize` puts one between an int8 layer and a 16x8 one (and back). `To` is the
/// result's element type: `std::int16_t` (int8 in QIn to int16 in QOut) or `std::int8_t` (int16 to int8).
///
/// | operand        | shape                                                                       |
/// |----------------|-----------------------------------------------------------------------------|
/// | `forward(x)`   | `qmatrix<n, d, QIn>` -> `q16matrix<n, d, QOut>`, or `q16matrix` -> `qmatrix` |
///
/// Example: `const auto h16 = ctattn::qconversion<q8, q16, std::int16_t>{}.forward(h8);`
///
/// Rules: x is in QIn (`input_quantization_must_match_layer`); the scales suit the kernel (`int16_scales_must_suit_the_kernel`).
template <quantization QIn, quantization QOut, detail::quantized_value To>
struct qconversion {
  using value_type = To;
  static constexpr bool int16 = std::same_as<To, std::int16_t>;
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;

  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    static_assert(
        (shape_error::input_quantization_must_match_layer<op::int16_conversion, quantization_constant<X::quant>,
                                                          quantization_constant<QIn>>::check(),
         true));
    if constexpr (int16) {
      return quantize<QOut, std::int16_t>(x);
    } else {
      return quantize<QOut>(x);
    }
  }

  /// The memory of `forward(x)` on an X: X and the result.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(detail::basic_quantized_matrix<To, X::row_extent, X::column_extent, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qconversion&, const qconversion&) = default;
};

/// The float matrix an int16 one stands for: scale x q, computed in double, rounded to float.
///
/// | operand | shape                  |
/// |---------|------------------------|
/// | `q`     | `q16matrix<R, C, Q>`   |
/// | result  | `matrix<float, R, C>` (q's extents) |
///
/// Example: `constexpr auto x = ctattn::dequantize(q16);`
template <Quantized16Matrix M>
[[nodiscard]] constexpr auto dequantize(const M& q) noexcept -> basic_matrix<float, M::row_extent, M::column_extent> {
  basic_matrix<float, M::row_extent, M::column_extent> x{};
  for (std::size_t r = 0; r < M::rows; ++r) {
    for (std::size_t c = 0; c < M::cols; ++c) x.elements[r][c] = static_cast<float>(q.real(r, c));
  }
  return x;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_Q16MATRIX_HPP
