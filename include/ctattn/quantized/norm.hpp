// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_QUANTIZED_NORM_HPP
#define CTATTN_QUANTIZED_NORM_HPP

/// \file
/// Int8 and int16 (16x8) layer normalization (LayerNorm, and RMSNorm) in integers only: the row's sums in int32 (int64 for int16), its variance term in int64, an exact integer
/// square root, the normalized values in fixed point, the layer's weight and bias as fixed-point constants derived
/// by the compiler from a float `ctattn::layer_norm`, then rounded to the output's quantization. The same bits in
/// constant evaluation and at run time, on every target, with or without an FPU.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `qlayer_norm<Width, QIn, QOut>`          | the int8 layer: per channel a weight multiplier, a shift, a bias; eps |
/// | `quantize_layer_norm<QIn, QOut>(norm)`   | a float `layer_norm<T, Width, Affine>` (nn.LayerNorm) quantized  |
/// | `qrms_norm<Width, QIn, QOut>`            | the same for RMSNorm (`qlayer_norm<..., true>`): rows centred on QIn's zero point, no bias |
/// | `quantize_rms_norm<QIn, QOut>(norm)`     | a float `rms_norm<T, Width, Affine>` (nn.RMSNorm) quantized      |
/// | `normalize(x, norm)`                     | `qmatrix<n, Width, QIn>` to `qmatrix<n, Width, QOut>`, row by row |
/// | `q16layer_norm<Width, QIn, QOut>`, `q16rms_norm` | the int16 layers (16x8: int16 rows in and out, zero points 0) |
/// | `quantize_layer_norm<QIn, QOut, std::int16_t>(norm)`, `quantize_rms_norm<..., std::int16_t>` | the float layers quantized for 16x8 |
/// | `normalize(x16, norm16)`                 | `q16matrix<n, Width, QIn>` to `q16matrix<n, Width, QOut>`     |
///
/// Example:
/// \code
///   #include <ctattn/layers/norm.hpp>   // ctattn::layer_norm
///   constexpr auto norm1_q = ctattn::quantize_layer_norm<q_x, q_norm1>(model.norm1);
///   const auto h = ctattn::normalize(x_q, norm1_q);   // qmatrix<n, 32, q_norm1>
/// \endcode
///
/// Rationale (the derivation). A row of C int8 values q_j with quantization (s, z) stands for x_j = s (q_j - z).
/// With S1 = sum q_j and S2 = sum q_j^2 (integers), the mean is s (S1 / C - z) and the biased variance
/// s^2 (C S2 - S1^2) / C^2, so
///
///     (x_j - mean) / sqrt(var + eps) = N_j / sqrt(V),   N_j = C q_j - S1,   V = D + E,
///     D = C S2 - S1^2,   E = eps C^2 / s^2:
///
/// the zero point and the scale cancel, except in E, which the compiler computes once. D >= 0 exactly (it is C^2
/// times the variance of the q_j), and D = 0 only for a row of equal values, where every N_j = 0. The output is
/// round(n_j gamma_j / s_out + beta_j / s_out) + z_out, with n_j = N_j / sqrt(V).
///
/// In fixed point (f = `epsilon_shift`, E_f = round(E 2^f), both chosen by the compiler: f is the largest even
/// number with C^2 2^14 2^f <= 2^60, 18 or more for C <= 16384, lowered by 2 until E 2^f <= 2^61):
///   1. V_f = D 2^f + E_f; k = (62 - bit_width(V_f)) / 2, so that V_f 4^k lies in [2^60, 2^62);
///   2. R = isqrt(V_f 4^k), in [2^30, 2^31): 2^(k + f/2) sqrt(V) with a relative error below 2^-30;
///   3. I = floor((2^61 + floor(R / 2)) / R) = round(2^61 / R), in (2^30, 2^31]: relative error at most 2^-31;
///   4. n_j = round(N_j I / 2^(37 - k - f/2)): N_j / sqrt(V) with 24 fractional bits (`fraction_bits`);
///   5. t_j = n_j m_j, m_j the signed mantissa of |gamma_j| / s_out = |m_j| 2^(e_j - 31) (`multiplier`);
///   6. A_j = round(t_j / 2^(39 - e_j)) + b_j, in 2^-16 output steps (`output_fraction_bits`), b_j =
///      round(beta_j / s_out 2^16) (`bias`); the shift 39 - e_j is `shift`, capped at 63;
///   7. q_j = clamp(round(A_j / 2^16) + z_out, -128, 127).
/// Every round() is to nearest, ties away from zero.
///
/// Rationale (no overflow, for any input; C <= 16384 is the rule `int8_layer_norm_must_not_overflow`):
///   - |q_j| <= 128: |S1| <= 2^21 and S2 <= 2^28 fit int32;
///   - D <= C^2 (255 / 2)^2 < C^2 2^14 (values within a range of 255 have a variance of at most (255 / 2)^2),
///     so D 2^f < 2^60 by the choice of f; E_f <= 2^61 (E is saturated at 2^61 only if E > 2^61 itself, with
///     f = 0): V_f < 2^62, and V_f 4^k < 2^62;
///   - D >= 1 in step 1 (a row of equal values skips to n_j = 0), so V_f >= 2^f and k + f/2 <= 30: the shift of
///     step 4 is at least 7;
///   - |N_j| <= 255 (C - 1) < 2^22 and I <= 2^31: |N_j I| < 2^53;
///   - |N_j| / sqrt(D) <= sqrt(C - 1) (no value lies further than sqrt(C - 1) biased standard deviations from the
///     mean), so |n_j| <= 2^24 sqrt(C - 1) (1 + 2^-29) + 1/2 < 2^31 for C <= 16384: n_j is an int32, and this is
///     what limits the width;
///   - |gamma_j| / s_out is held at 2^15 at most, so e_j <= 16, the shift 39 - e_j >= 23, |t_j| < 2^31 2^31 = 2^62,
///     |round(t_j / 2^(39 - e_j))| <= 2^15 2^7 2^16 = 2^38, b_j is an int32: |A_j| < 2^39.
/// int64 holds every step; int32 holds S1, S2, n_j, m_j and b_j.
///
/// Rationale (precision): R and I give n_j a relative error below 2^-29, step 4 an absolute one of 2^-25; E_f's
/// rounding (half of 2^-f in V) moves n_j by at most 2^-(f + 2) / sqrt(C - 1) < C^1.5 2^-46 <= 2^-25 when f is
/// not lowered, and by 2^-61 relative when it is (then E 2^f > 2^59). The weight's mantissa adds 2^-31 relative,
/// step 6 and b_j at most 2^-17 output steps each. For |gamma_j| / s_out <= 2^10 the value rounded in step 7 is
/// thus within 2^-11 output steps of the exact n_j gamma_j / s_out + beta_j / s_out (|n_j| < 2^7), and each output
/// within 0.5 + 2^-11 output steps of LayerNorm of the input's real values, unless it saturates
/// (tests/static/quantized_test.cpp holds it to that bound against torch's nn.LayerNorm). A row of equal values gives
/// beta_j / s_out rounded, plus z_out, as float LayerNorm does with eps > 0 (with eps = 0 float gives NaN). Beyond
/// the held limits (|gamma_j| / s_out > 2^15, |beta_j| / s_out >= 2^15, E > 2^61, the last only for a scale s below
/// sqrt(eps) C 2^-30.5), outputs saturate or differ from float; no real layer comes near them.
///
/// Rationale (int16, 16x8): TFLite has no LayerNorm operator, so ctattn states its own: the steps above on int16
/// values q_j of zero point 0, with these changes and bounds (C <= 16384, the same rule):
///   - S1 and S2 in int64: |S1| <= 2^29, S2 <= 2^44;
///   - D <= C^2 (65535 / 2)^2 < C^2 2^30 (RMSNorm: S1 = 0, D = C S2 <= C^2 2^30), so f is the largest even number
///     with C^2 2^30 2^f <= 2^60 (20 for C = 32, 2 for C = 16384) and D 2^f <= 2^60: V_f < 2^62 as before, and the
///     shift of step 4 is at least 7;
///   - |N_j| <= 65535 (C - 1) < 2^30, so |N_j I| < 2^61; |n_j| < 2^31 as before;
///   - |gamma_j| / s_out is held at 2^23 (an int16 output has 2^16 steps over its range), so e_j <= 24, and A_j is
///     kept in 2^-8 output steps (`output_fraction_bits`): the shift is 47 - e_j >= 23, |A_j| < 2^40, b_j =
///     round(beta_j / s_out 2^8) an int32;
///   - q_j = clamp(round(A_j / 2^8), -32768, 32767).
/// Precision, for |gamma_j| / s_out <= 2^15 and eps >= 4 s_in^2 (for eps = 1e-5, inputs within +-51): R and I
/// move the value rounded in step 7 by at most 2^-7 output steps (|n_j| < 2^7), step 4 and E_f's rounding (at most
/// sqrt(C - 1) / (4 V_f), and V_f >= E_f > 2^30 under that eps) by 2^-10 each, the weight's mantissa, step 6 and
/// b_j by 2^-9 each: each output within 0.5 + 2^-6 output steps of LayerNorm of the input's real values, unless it
/// saturates (tests/support/int16_cases.hpp holds it to that bound against torch's nn.LayerNorm).

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ctattn/detail/footprint_type.hpp"
#include "ctattn/kernels/int16.hpp"
#include "ctattn/kernels/int8.hpp"
#include "ctattn/math/fixed_point.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/quantized/q16matrix.hpp"
#include "ctattn/quantized/qmatrix.hpp"
#include "ctattn/quantized/rules.hpp"

namespace ctattn {

// The float layer (ctattn/layers/norm.hpp), declared, not included.
// Rationale: the layers tier needs Boost.Hana and the core does not; `quantize_layer_norm` only reads the layer's
// members, and the layer's type is complete wherever a user names it.
template <typename T, auto Width, bool Affine>
struct layer_norm;
template <typename T, auto Width, bool Affine>
struct rms_norm;

namespace detail {
// The rules of an int8 or int16 LayerNorm layer's type: its quantizations, and a width whose fixed point fits.
template <std::size_t Width, quantization QIn, quantization QOut, bool RootMeanSquare, typename Value>
using quantized_layer_norm_type_rules =
    rule_list<value_quantization_rules<Value, QIn>, value_quantization_rules<Value, QOut>,
              shape_error::int8_layer_norm_must_not_overflow<op::quantized_layer_norm, count<Width>,
                                                             count<RootMeanSquare ? 16383 : 16384>>>;

// round(v) for v >= 0, ties away from zero, held at `limit` (<= 2^62); NaN and v <= 0 give 0.
constexpr std::int64_t round_held(double v, std::int64_t limit) noexcept {
  if (!(v > 0.0)) return 0;
  if (v >= static_cast<double>(limit)) return limit;
  const auto whole = static_cast<std::int64_t>(v);  // exact below 2^62; v - whole is exact
  return whole + (v - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}
}  // namespace detail

/// An int8 LayerNorm over rows of Width values quantized with QIn, giving rows quantized with QOut; made by
/// `quantize_layer_norm` from a float `layer_norm` (the header's rationale derives each member).
///
/// | member             | shape / meaning                                                                  |
/// |--------------------|----------------------------------------------------------------------------------|
/// | `multiplier`       | Width int32: abs(gamma_j) / s_out as a mantissa in [2^30, 2^31) (or 0), gamma_j's sign |
/// | `shift`            | Width int32: 39 - the exponent, in [23, 63]: from n_j multiplier_j to 2^-16 output steps |
/// | `bias`             | Width int32: beta_j / s_out in 2^-16 output steps                                |
/// | `epsilon`          | eps C^2 / s_in^2 times 2^epsilon_shift, rounded (int64)                          |
/// | `epsilon_shift`    | f, even, at most `largest_epsilon_shift`: the fractional bits of the variance term |
/// | `largest_epsilon_shift` | the largest even f with Width^2 2^14 2^f <= 2^60 (18 for Width 16384, 36 for 32) |
/// | `fraction_bits`    | 24, of the normalized values                                                     |
/// | `output_fraction_bits` | 16, of the output before its rounding                                        |
///
/// With `RootMeanSquare`, RMSNorm (`qrms_norm`, made by `quantize_rms_norm`): each row centred on QIn's zero point
/// (real 0) instead of its mean, so that N_j = C (q_j - z) and D = C sum (q_j - z)^2 <= C^2 255^2 < C^2 2^16; f the
/// largest even number with Width^2 2^16 2^f <= 2^60; the bias 0 (nn.RMSNorm has none); |N_j| / sqrt(D) <= sqrt(C),
/// so Width <= 16383 keeps |n_j| < 2^31. The other steps and bounds are LayerNorm's.
///
/// With `Value` `std::int16_t` (`q16layer_norm`, `q16rms_norm`, made by `quantize_layer_norm<QIn, QOut,
/// std::int16_t>`), the 16x8 layer: int16 rows in and out (both zero points 0), the header's steps with D < C^2 2^30
/// (f the largest even number with Width^2 2^30 2^f <= 2^60), |gamma_j| / s_out held at 2^23 instead of 2^15, A_j in
/// 2^-8 output steps (`output_fraction_bits`, the shift 47 - e_j) and the output clamped to int16 (the header's
/// int16 rationale).
///
/// Rules: QIn and QOut are quantizations (for int16, of zero point 0: `int16_zero_point_must_be_zero`); Width <=
/// 16384, 16383 for RMSNorm (`int8_layer_norm_must_not_overflow`).
template <auto Width, quantization QIn, quantization QOut, bool RootMeanSquare = false,
          detail::quantized_value Value = std::int8_t>
struct qlayer_norm {
  static constexpr auto input_extent = normalize_extent<Width>;
  static constexpr auto output_extent = normalize_extent<Width>;
  static constexpr std::size_t width = extent_size(Width);
  static_assert(
      (detail::first_broken<detail::quantized_layer_norm_type_rules<width, QIn, QOut, RootMeanSquare, Value>>::check(),
       true));
  using value_type = Value;
  static constexpr bool int16 = std::same_as<Value, std::int16_t>;
  static constexpr bool root_mean_square = RootMeanSquare;
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  static constexpr int fraction_bits = 24;
  static constexpr int output_fraction_bits = int16 ? detail::kernels::int16_layer_norm_output_fraction_bits
                                                    : detail::kernels::int8_layer_norm_output_fraction_bits;
  /// The largest |gamma_j| / s_out the layer holds: 2^15 output steps per unit (int8), 2^23 (int16).
  static constexpr double largest_weight = int16 ? 8388608.0 : 32768.0;
  static constexpr std::int32_t largest_epsilon_shift = [] {
    std::int32_t f = 0;
    constexpr int headroom = int16 ? 30 : (RootMeanSquare ? 16 : 14);  // D < C^2 2^headroom (<= for int16 RMSNorm)
    while (f < 46 && (std::uint64_t{width} * width << (headroom + f + 2)) <= (std::uint64_t{1} << 60)) f += 2;
    return f;
  }();

  std::int32_t multiplier[width]{};
  std::int32_t shift[width]{};
  std::int32_t bias[width]{};
  std::int64_t epsilon = 0;
  std::int32_t epsilon_shift = 0;

  /// `ctattn::normalize(x, *this)`: the call of the layer protocol, as `qlinear::forward`.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return normalize(x, *this);
  }

  /// The memory of `normalize(x, norm)` on an X (ctattn::footprint): the object, X and the result (the same size),
  /// and on the stack one row's constants.
  template <detail::AnyQuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qlayer_norm), sizeof(X),
            sizeof(detail::basic_quantized_matrix<Value, X::row_extent, output_extent, QOut>), 0,
            sizeof(detail::kernels::int8_layer_norm_row)};
  }

  friend constexpr bool operator==(const qlayer_norm&, const qlayer_norm&) = default;
};

namespace detail {
// The constants of an int8 LayerNorm or RMSNorm from its float layer (`quantize_layer_norm`, `quantize_rms_norm`):
// `HasBias` says whether the float layer has a bias (LayerNorm with affine parameters).
template <typename Quantized, bool Affine, bool HasBias, typename Float>
[[nodiscard]] constexpr Quantized quantized_norm_constants(const Float& norm) noexcept {
  constexpr quantization QIn = Quantized::input_quantization;
  constexpr quantization QOut = Quantized::output_quantization;
  Quantized q{};
  constexpr std::size_t c = Float::width;
  constexpr double largest_weight = Quantized::largest_weight;  // output steps per unit of the normalized value
  // From n_j m_j (24 + 31 - e_j fractional bits) to A_j's output_fraction_bits: 39 - e_j (int8), 47 - e_j (int16).
  constexpr std::int32_t shift_base = Quantized::fraction_bits + 31 - Quantized::output_fraction_bits;
  for (std::size_t j = 0; j < c; ++j) {
    double gamma = 1.0;
    double beta = 0.0;
    if constexpr (Affine) gamma = static_cast<double>(norm.weight.elements[0][j]);
    if constexpr (Affine && HasBias) beta = static_cast<double>(norm.bias.elements[0][j]);
    double magnitude = (gamma < 0.0 ? -gamma : gamma) / QOut.scale();
    magnitude = magnitude > largest_weight ? largest_weight : magnitude;
    const math::quantized_multiplier m = math::quantize_multiplier(magnitude);
    q.multiplier[j] = gamma < 0.0 ? -m.multiplier : m.multiplier;
    q.shift[j] = shift_base - m.shift > 63 ? 63 : shift_base - m.shift;
    q.bias[j] = static_cast<std::int32_t>(
        round_away(beta / QOut.scale() * static_cast<double>(std::int64_t{1} << Quantized::output_fraction_bits)));
  }
  constexpr std::int64_t largest_epsilon = std::int64_t{1} << 61;
  const double e = static_cast<double>(norm.eps) / (QIn.scale() * QIn.scale()) * static_cast<double>(c * c);
  std::int32_t f = Quantized::largest_epsilon_shift;
  while (f > 0 && !(e * static_cast<double>(std::int64_t{1} << f) <= static_cast<double>(largest_epsilon))) f -= 2;
  q.epsilon_shift = f;
  q.epsilon = round_held(e * static_cast<double>(std::int64_t{1} << f), largest_epsilon);
  return q;
}
}  // namespace detail

/// A float LayerNorm (nn.LayerNorm: weight gamma, bias beta, eps; or no affine parameters) quantized for inputs QIn
/// and outputs QOut: per channel, |gamma_j| / s_out as `math::quantize_multiplier` gives it (held at 2^15) with
/// gamma_j's sign, the shift 39 - its exponent (at most 63), and round(beta_j / s_out 2^16) (saturating int32);
/// eps C^2 / s_in^2 with f fractional bits, f the largest even number <= `largest_epsilon_shift` that keeps it
/// <= 2^61 (f = 0 and 2^61 if none does). Every quotient is computed in double, then rounded to nearest, ties away
/// from zero.
///
/// | operand | what                                         |
/// |---------|----------------------------------------------|
/// | `norm`  | `layer_norm<T, Width, Affine>` (ctattn/layers/norm.hpp) |
/// | result  | `qlayer_norm<Width, QIn, QOut, false, Value>`  |
///
/// With `Value` `std::int16_t` (16x8: int16 inputs and outputs, both zero points 0), the int16 layer's limits:
/// |gamma_j| / s_out held at 2^23, the shift 47 - e_j, the bias in 2^-8 output steps, f for D < C^2 2^30.
///
/// Example:
/// \code
///   constexpr auto norm_q = ctattn::quantize_layer_norm<q_x, q_norm>(model.norm);
///   constexpr auto norm16 = ctattn::quantize_layer_norm<q_x16, q_norm16, std::int16_t>(model.norm);
///   const auto h = ctattn::normalize(x16, norm16);   // q16matrix<n, 32, q_norm16>
/// \endcode
template <quantization QIn, quantization QOut, detail::quantized_value Value = std::int8_t, typename T, auto Width,
          bool Affine>
[[nodiscard]] constexpr auto quantize_layer_norm(const layer_norm<T, Width, Affine>& norm) noexcept {
  using Float = layer_norm<T, Width, Affine>;
  // Rationale: the layer's rules checked here, before its type is formed, so that the user's call is among the first
  // lines of a broken rule's error.
  if constexpr (!detail::first_broken<
                    detail::quantized_layer_norm_type_rules<Float::width, QIn, QOut, false, Value>>::check()) {
    return 0;
  } else {
    return detail::quantized_norm_constants<qlayer_norm<Float::input_extent, QIn, QOut, false, Value>, Affine, true>(
        norm);
  }
}

/// An int8 RMSNorm over rows of Width values quantized with QIn, giving rows quantized with QOut
/// (`qlayer_norm` with `RootMeanSquare`; its bias is 0).
template <auto Width, quantization QIn, quantization QOut>
using qrms_norm = qlayer_norm<Width, QIn, QOut, true>;

/// A float RMSNorm (nn.RMSNorm: weight gamma, eps; or no weight) quantized for inputs QIn and outputs QOut, as
/// `quantize_layer_norm` quantizes a LayerNorm (no bias): y_j = x_j / sqrt(mean(x^2) + eps) gamma_j in integers;
/// int8 (`Value` `std::int8_t`, the default) or int16 (16x8).
///
/// | operand | what                                         |
/// |---------|----------------------------------------------|
/// | `norm`  | `rms_norm<T, Width, Affine>` (ctattn/layers/norm.hpp) |
/// | result  | `qlayer_norm<Width, QIn, QOut, true, Value>` (`qrms_norm`, `q16rms_norm`) |
///
/// Example: `constexpr auto norm_q = ctattn::quantize_rms_norm<q_x, q_norm>(model.norm);`, or in 16x8
/// `ctattn::quantize_rms_norm<q_x16, q_norm16, std::int16_t>(model.norm)`.
template <quantization QIn, quantization QOut, detail::quantized_value Value = std::int8_t, typename T, auto Width,
          bool Affine>
[[nodiscard]] constexpr auto quantize_rms_norm(const rms_norm<T, Width, Affine>& norm) noexcept {
  using Float = rms_norm<T, Width, Affine>;
  // Rationale: the layer's rules checked here, before its type is formed, so that the user's call is among the first
  // lines of a broken rule's error.
  if constexpr (!detail::first_broken<
                    detail::quantized_layer_norm_type_rules<Float::width, QIn, QOut, true, Value>>::check()) {
    return 0;
  } else {
    return detail::quantized_norm_constants<qlayer_norm<Float::input_extent, QIn, QOut, true, Value>, Affine, false>(
        norm);
  }
}

/// An int16 LayerNorm (16x8) over rows of Width int16 values quantized with QIn, giving int16 rows quantized with
/// QOut (`qlayer_norm` with `Value` `std::int16_t`; both zero points 0).
template <auto Width, quantization QIn, quantization QOut>
using q16layer_norm = qlayer_norm<Width, QIn, QOut, false, std::int16_t>;

/// An int16 RMSNorm (16x8): `qlayer_norm` with `RootMeanSquare` and `Value` `std::int16_t`; its bias is 0.
template <auto Width, quantization QIn, quantization QOut>
using q16rms_norm = qlayer_norm<Width, QIn, QOut, true, std::int16_t>;

namespace detail {
template <typename X, typename L>
using quantized_layer_norm_rules = rule_list<
    shape_error::columns_must_match<op::quantized_layer_norm, dim_of<X::column_extent>, dim_of<L::input_extent>>,
    shape_error::input_quantization_must_match_layer<op::quantized_layer_norm, typename X::quantization_type,
                                                     quantization_constant<L::input_quantization>>>;
}  // namespace detail

/// LayerNorm of each row of x in int8, integers only (the header's rationale gives the steps and their bounds):
/// each output within 0.5 + 2^-11 output steps of nn.LayerNorm of x's real values, unless it saturates.
///
/// | operand | shape                                  |
/// |---------|----------------------------------------|
/// | `x`     | `qmatrix<n, Width, QIn>`               |
/// | `norm`  | `qlayer_norm<Width, QIn, QOut>`        |
/// | result  | `qmatrix<n, Width, QOut>`              |
///
/// Rules: x has the layer's width (`columns_must_match`, names included) and its quantization
/// (`input_quantization_must_match_layer`).
///
/// Example:
/// \code
///   const auto h = ctattn::normalize(x_q, norm_q);
/// \endcode
template <QuantizedMatrix X, auto Width, quantization QIn, quantization QOut, bool RootMeanSquare>
[[nodiscard]] constexpr auto normalize(const X& x, const qlayer_norm<Width, QIn, QOut, RootMeanSquare>& norm) noexcept
    -> basic_qmatrix<X::row_extent, qlayer_norm<Width, QIn, QOut, RootMeanSquare>::output_extent, QOut> {
  using L = qlayer_norm<Width, QIn, QOut, RootMeanSquare>;
  basic_qmatrix<X::row_extent, L::output_extent, QOut> y;
  if constexpr (detail::first_broken<detail::quantized_layer_norm_rules<X, L>>::check()) {
    detail::kernels::int8_layer_norm_rows<RootMeanSquare>(x.elements, y.elements, norm.multiplier, norm.shift,
                                                          norm.bias, norm.epsilon, norm.epsilon_shift, QOut.zero_point,
                                                          QIn.zero_point);
  }
  return y;
}

/// LayerNorm (or RMSNorm) of each row of an int16 x (16x8), integers only: the int8 layer's steps with the int16
/// limits (the header's int16 rationale): each output within 0.5 + 2^-6 output steps of nn.LayerNorm of x's real
/// values, unless it saturates.
///
/// | operand | shape                                  |
/// |---------|----------------------------------------|
/// | `x`     | `q16matrix<n, Width, QIn>`             |
/// | `norm`  | `q16layer_norm<Width, QIn, QOut>` (or `q16rms_norm`) |
/// | result  | `q16matrix<n, Width, QOut>`            |
///
/// Rules: as the int8 `normalize`.
///
/// Example: `const auto h = ctattn::normalize(x16, norm16);`
template <Quantized16Matrix X, auto Width, quantization QIn, quantization QOut, bool RootMeanSquare>
[[nodiscard]] constexpr auto normalize(const X& x,
                                       const qlayer_norm<Width, QIn, QOut, RootMeanSquare, std::int16_t>& norm) noexcept
    -> basic_q16matrix<X::row_extent, qlayer_norm<Width, QIn, QOut, RootMeanSquare, std::int16_t>::output_extent,
                       QOut> {
  using L = qlayer_norm<Width, QIn, QOut, RootMeanSquare, std::int16_t>;
  basic_q16matrix<X::row_extent, L::output_extent, QOut> y;
  if constexpr (detail::first_broken<detail::quantized_layer_norm_rules<X, L>>::check()) {
    detail::kernels::int16_layer_norm_rows<RootMeanSquare>(x.elements, y.elements, norm.multiplier, norm.shift,
                                                           norm.bias, norm.epsilon, norm.epsilon_shift);
  }
  return y;
}

/// `normalize(x, norm)` with an int8 x and an int16 layer, or an int16 x and an int8 layer: refused at compile time
/// (`quantized_operands_must_have_one_width`), with the conversion to write.
///
/// Example: `ctattn::normalize(ctattn::quantize<q_x16, std::int16_t>(x8), norm16)` rather than
/// `ctattn::normalize(x8, norm16)`.
template <detail::AnyQuantizedMatrix X, auto Width, quantization QIn, quantization QOut, bool RootMeanSquare,
          typename Value>
  requires(!std::same_as<typename X::value_type, Value>)
constexpr auto normalize(const X&, const qlayer_norm<Width, QIn, QOut, RootMeanSquare, Value>&) noexcept {
  using L = qlayer_norm<Width, QIn, QOut, RootMeanSquare, Value>;
  static_assert((shape_error::quantized_operands_must_have_one_width<op::quantized_layer_norm, X, L>::check(), true));
  return detail::basic_quantized_matrix<Value, X::row_extent, L::output_extent, QOut>{};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_NORM_HPP
