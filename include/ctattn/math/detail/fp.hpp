// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_MATH_DETAIL_FP_HPP
#define CTATTN_MATH_DETAIL_FP_HPP

/// \file
/// Building blocks shared by ctattn's constexpr math functions: the binary layout of float and double,
/// exact power-of-two scaling, rounding to an integer, and the error-free transformations (two-sum,
/// two-product) behind the float-float and double-double steps. Everything is plain arithmetic and integer
/// bit manipulation, so it gives the same bits in constant evaluation and at run time.
///
/// `round_to_integer`, `fast_two_sum` and `horner` also take a GCC vector of float or double (`lane_row`'s chunks in
/// kernels/constant.hpp) and compute each lane as they compute a scalar: the exponential's reduction runs on lanes
/// in GCC's constant evaluation that way (`lanes_exp` there).

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "ctattn/shape/rule.hpp"

// Rationale: bit-identical results need every operation rounded to its own type. x87 code (32-bit x86 without
// SSE) evaluates float and double in extended precision and would silently break that guarantee.
#if defined(__FLT_EVAL_METHOD__)
static_assert(__FLT_EVAL_METHOD__ == 0 || __FLT_EVAL_METHOD__ == -1,
              "ctattn::math needs float and double arithmetic evaluated in their own precision "
              "(FLT_EVAL_METHOD 0): on 32-bit x86 compile with -msse2 -mfpmath=sse");
#endif

// Rationale: the helpers that take lanes (above) run on GCC's vector types in constant evaluation only; GCC's
// note that passing a vector by value depends on the target's vector extensions (-Wpsabi) concerns no code here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace ctattn::math::detail {

template <Scalar T>
struct format;

/// The type of V's elements: T itself for a float or double T, the lanes' type for a GCC vector of them.
template <typename V>
struct element_of {
  using type = std::remove_cvref_t<decltype(std::declval<V&>()[0])>;
};

template <Scalar T>
struct element_of<T> {
  using type = T;
};

template <typename V>
using element_t = typename element_of<V>::type;

/// A GCC vector V of T with every lane holding x.
template <typename V, Scalar T, std::size_t... L>
constexpr V broadcast_lanes(T x, std::index_sequence<L...>) noexcept {
  return V{((void)L, x)...};
}

template <typename V, Scalar T>
constexpr V broadcast(T x) noexcept {
  return broadcast_lanes<V>(x, std::make_index_sequence<sizeof(V) / sizeof(T)>{});
}

template <>
struct format<float> {
  using bits = std::uint32_t;
  static constexpr int mantissa_bits = 23;  // stored fraction bits
  static constexpr int bias = 127;
};

template <>
struct format<double> {
  using bits = std::uint64_t;
  static constexpr int mantissa_bits = 52;
  static constexpr int bias = 1023;
};

template <Scalar T>
using bits_t = typename format<T>::bits;

template <Scalar T>
constexpr bits_t<T> to_bits(T x) noexcept {
  return std::bit_cast<bits_t<T>>(x);
}

template <Scalar T>
constexpr T from_bits(bits_t<T> b) noexcept {
  return std::bit_cast<T>(b);
}

template <Scalar T>
constexpr bool is_nan(T x) noexcept {
  return x != x;
}

template <Scalar T>
constexpr bool sign_bit(T x) noexcept {
  return (to_bits(x) >> (sizeof(T) * 8 - 1)) != 0;
}

template <Scalar T>
constexpr T infinity() noexcept {
  return std::numeric_limits<T>::infinity();
}

template <Scalar T>
constexpr T quiet_nan() noexcept {
  return std::numeric_limits<T>::quiet_NaN();
}

template <Scalar T>
constexpr T abs(T x) noexcept {
  return from_bits<T>(to_bits(x) & ~(bits_t<T>{1} << (sizeof(T) * 8 - 1)));
}

/// 2^k for k in the normal exponent range [1 - bias, bias].
template <Scalar T>
constexpr T pow2(int k) noexcept {
  return from_bits<T>(static_cast<bits_t<T>>(k + format<T>::bias) << format<T>::mantissa_bits);
}

/// x * 2^k for x in [0.5, 2] and any k whose result is finite, rounded once (gradual underflow included).
// Rationale: below the normal range the scaling is split into an exact step and one rounding step, so a
// subnormal result is rounded once, like the correctly rounded value would be.
template <Scalar T>
constexpr T scale(T x, int k) noexcept {
  constexpr int bias = format<T>::bias;
  if (k > bias - 1) return x * pow2<T>(k - 1) * T(2);
  if (k < 2 - bias) return x * pow2<T>(k + bias - 1) * pow2<T>(1 - bias);
  return x * pow2<T>(k);
}

/// Round to the nearest integer (ties to even) for |x| < 2^(mantissa_bits - 1), returned as T.
// Rationale: the constants of these helpers are variable templates, evaluated once per translation unit; a
// constexpr local would be evaluated again on every call by Clang's constant evaluator.
template <Scalar T>
inline constexpr T integer_shifter = T(1.5) * pow2<T>(format<T>::mantissa_bits);

template <typename V>
constexpr V round_to_integer(V x) noexcept {
  using T = element_t<V>;
  return x + integer_shifter<T> - integer_shifter<T>;  // (x + shifter) rounds to an integer; - shifter is exact
}

/// An unevaluated sum hi + lo with |lo| at most half an ulp of hi: a float-float or double-double value.
template <typename T>
struct twofold {
  T hi;
  T lo;
};

/// Exact sum of a and b when |a| >= |b| (or a == 0): a + b == hi + lo exactly. Either may be a scalar where the
/// other is a vector of lanes (the scalar then stands for every lane).
template <typename A, typename B>
constexpr twofold<std::remove_const_t<decltype(A{} + B{})>> fast_two_sum(A a, B b) noexcept {
  const auto s = a + b;
  return {s, b - (s - a)};
}

/// Exact product: a * b == hi + lo, barring overflow and underflow (Dekker's algorithm with Veltkamp's split;
/// no fused multiply-add, which constant evaluation does not have).
template <Scalar T>
inline constexpr T veltkamp_splitter = pow2<T>((format<T>::mantissa_bits + 2) / 2) + T(1);

template <Scalar T>
constexpr twofold<T> two_product(T a, T b) noexcept {
  const T ca = veltkamp_splitter<T> * a;
  const T a_hi = ca - (ca - a);
  const T a_lo = a - a_hi;
  const T cb = veltkamp_splitter<T> * b;
  const T b_hi = cb - (cb - b);
  const T b_lo = b - b_hi;
  const T p = a * b;
  return {p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo};
}

template <std::size_t... I>
constexpr std::index_sequence<(sizeof...(I) - 1 - I)...> reversed(std::index_sequence<I...>) noexcept {
  return {};
}

template <Scalar T, std::size_t N, typename V, std::size_t... I>
constexpr V horner_steps(const T (&c)[N], V acc, V t, std::index_sequence<I...>) noexcept {
  ((acc = acc * t + c[I]), ...);
  return acc;
}

/// Horner evaluation of c[0] + c[1] t + ... + c[N-1] t^(N-1): acc = c[N-1], then acc = acc t + c[i] for
/// i = N-2 down to 0.
// Rationale: one call per polynomial (GCC caches every constexpr call, so fewer calls keep compile-time memory
// down), and its steps are one fold over a reversed index pack rather than a loop: the constant evaluators pay
// per loop iteration and per index computation more than for the arithmetic (Clang 14 evaluates a degree-5
// polynomial about 4 times faster this way). Run time: the same straight-line code.
template <Scalar T, std::size_t N>
constexpr T horner(const T (&c)[N], T t) noexcept {
  return horner_steps(c, c[N - 1], t, reversed(std::make_index_sequence<N - 1>{}));
}

/// `horner` on every lane of t, a GCC vector of T: each lane as `horner(c, lane)` gives it.
template <Scalar T, std::size_t N, typename V>
  requires(!Scalar<V>)
constexpr V horner(const T (&c)[N], V t) noexcept {
  return horner_steps(c, broadcast<V>(c[N - 1]), t, reversed(std::make_index_sequence<N - 1>{}));
}

}  // namespace ctattn::math::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // CTATTN_MATH_DETAIL_FP_HPP
