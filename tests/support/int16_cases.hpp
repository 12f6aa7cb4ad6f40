// ctattn's int16 tier (TFLite's 16x8 mode: include/ctattn/quantized/q16matrix.hpp, int16.hpp, kernels/int16.hpp)
// against TensorFlow Lite Micro's reference arithmetic transcribed in Python (tests/fixtures/quantized/int16.hpp),
// counted as the number of int16 (or int8) results that differ. Asserted at compile time (tests/static/int16_test.cpp)
// and checked at run time (tests/runtime/int16_test.cpp, tests/backend), where `Read` hides each input from the
// optimizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <tuple>
#include <utility>

#include <ctattn/attention/projection.hpp>  // ctattn::linear
#include <ctattn/kernels/int16.hpp>
// The float LayerNorm and activations need the layers tier (Boost.Hana), which a board's image may lack: there the
// cases check the int16 layers made from the reference's constants and tables, not the compiler's quantization of
// the float layers (checked in constant evaluation and at run time on the host).
#if __has_include(<boost/hana/tuple.hpp>)
#include <ctattn/layers/activation.hpp>
#include <ctattn/layers/norm.hpp>
#define CTATTN_TEST_FLOAT_LAYERS 1
#else
#define CTATTN_TEST_FLOAT_LAYERS 0
#endif
#include <ctattn/math/fixed_point.hpp>
#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/activation.hpp>
#include <ctattn/quantized/int16.hpp>
#include <ctattn/quantized/norm.hpp>
#include <ctattn/quantized/q16attention.hpp>
#include <ctattn/quantized/q16linear.hpp>
#include <ctattn/quantized/q16matrix.hpp>
#include <ctattn/quantized/qmatrix.hpp>

#include "fixtures/quantized/int16.hpp"
#include "support/case_list.hpp"

namespace ctattn_test::int16_cases {

namespace fx = ctattn_fixtures::int16;

using ctattn_test::differing;

// quantize<{s}, std::int16_t>(x): ties, the range's ends and values past them.
template <typename Read>
constexpr std::size_t quantize_mismatches(Read read) noexcept {
  constexpr ctattn::quantization q{fx::quantize16::scale};
  return differing(ctattn::quantize<q, std::int16_t>(read(ctattn::from_array(fx::quantize16::x))), fx::quantize16::q);
}

// int8 -> int16 and int16 -> int8 (TFLite's QUANTIZE between quantized tensors), from the quantized inputs.
template <typename Read>
constexpr std::size_t conversion_mismatches(Read read) noexcept {
  namespace cv = fx::conversions;
  constexpr ctattn::quantization q8{cv::s8, cv::z8[0]};
  constexpr ctattn::quantization q16{cv::s16};
  const auto x = read(ctattn::from_array(cv::x));
  const auto a8 = ctattn::quantize<q8>(x);
  const auto a16 = ctattn::quantize<q16, std::int16_t>(x);
  return differing(a8, cv::q8) + differing(a16, cv::q16) +
         differing(ctattn::quantize<q16, std::int16_t>(read(a8)), cv::to16) +
         differing(ctattn::quantize<q8>(read(a16)), cv::to8);
}

// One int16 product case: the float inputs quantized (the reference's a and b), multiplied with b and with b's rows
// through the transpose view.
template <typename Case, typename Read>
constexpr std::size_t product_mismatches(Read read) noexcept {
  constexpr ctattn::quantization qa{Case::sa}, qb{Case::sb}, qo{Case::so};
  const auto a = ctattn::quantize<qa, std::int16_t>(read(ctattn::from_array(Case::a_real)));
  const auto b = ctattn::quantize<qb, std::int16_t>(read(ctattn::from_array(Case::b_real)));
  using b_type = std::remove_cvref_t<decltype(b)>;
  ctattn::basic_q16matrix<b_type::column_extent, b_type::row_extent, qb> b_rows{};
  for (std::size_t r = 0; r < b_type::rows; ++r) {
    for (std::size_t c = 0; c < b_type::cols; ++c) b_rows.elements[c][r] = b.elements[r][c];
  }
  return differing(a, Case::a) + differing(b, Case::b) + differing(ctattn::multiply<qo>(a, b), Case::out) +
         differing(ctattn::multiply<qo>(a, ctattn::transpose(read(b_rows))), Case::out);
}

struct product_case {
  static constexpr float sa = fx::product::sa, sb = fx::product::sb, so = fx::product::so;
  static constexpr const auto& a_real = fx::product::a_real;
  static constexpr const auto& b_real = fx::product::b_real;
  static constexpr const auto& a = fx::product::a;
  static constexpr const auto& b = fx::product::b;
  static constexpr const auto& out = fx::product::out;
};
struct saturating_product_case {
  static constexpr float sa = fx::saturating_product::sa, sb = fx::saturating_product::sb,
                         so = fx::saturating_product::so;
  static constexpr const auto& a_real = fx::saturating_product::a_real;
  static constexpr const auto& b_real = fx::saturating_product::b_real;
  static constexpr const auto& a = fx::saturating_product::a;
  static constexpr const auto& b = fx::saturating_product::b;
  static constexpr const auto& out = fx::saturating_product::out;
};

// The 16x8 fully-connected kernel: int16 rows, int8 weights, int64 bias, per-channel multipliers.
template <typename Read>
constexpr std::size_t fully_connected_mismatches(Read read) noexcept {
  namespace fc = fx::fully_connected;
  constexpr std::size_t m = std::size(fc::x), k = std::size(fc::x[0]), n = std::size(fc::w);
  const auto x = ctattn::quantize<ctattn::quantization{fc::sx}, std::int16_t>(read(ctattn::from_array(fc::x_real)));
  std::int8_t w[n][k]{};
  std::int64_t bias[n]{};
  ctattn::math::quantized_multiplier multipliers[n]{};
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t t = 0; t < k; ++t) w[c][t] = static_cast<std::int8_t>(read(fc::w[c][t]));
    bias[c] = read(fc::bias[c]);
    multipliers[c] = {fc::multipliers[c], fc::shifts[c]};
  }
  ctattn::q16matrix<m, n, ctattn::quantization{fc::sy}> y{};
  ctattn::detail::kernels::int16_fully_connected(x.elements, w, bias, multipliers, y.elements);
  return differing(x, fc::x) + differing(y, fc::y);
}

// The 16x8 layer: nn.Linear quantized by quantize_linear<QIn, QOut, std::int16_t> with the reference's float32 scales
// (per channel, then one per tensor), its weights, biases and outputs.
template <typename Read>
constexpr std::size_t linear_mismatches(Read read) noexcept {
  namespace fc = fx::fully_connected;
  constexpr ctattn::quantization q_in{fc::sx}, q_out{fc::sy};
  constexpr std::size_t k = std::size(fc::x[0]), n = std::size(fc::w);
  ctattn::linear<float, k, n, ctattn::out_by_in, true> layer{};
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t t = 0; t < k; ++t) layer.weight.elements[c][t] = read(fc::w_real[c][t]);
    layer.bias.elements[0][c] = read(fc::b_real[c]);
  }
  const auto channels =
      ctattn::quantize_linear<q_in, q_out, std::int16_t>(layer, ctattn::channel_scales<n>{fc::scales});
  const auto tensor = ctattn::quantize_linear<q_in, q_out, std::int16_t, ctattn::weight_granularity::per_tensor>(
      layer, ctattn::channel_scales<1>{{fc::tensor_scale}});
  const auto x = ctattn::quantize<q_in, std::int16_t>(read(ctattn::from_array(fc::x_real)));
  std::uint32_t bad = 0;
  for (std::size_t c = 0; c < n; ++c) {
    bad += channels.bias[c] == fc::bias[c] ? 0u : 1u;
    bad += tensor.bias[c] == fc::tensor_bias[c] ? 0u : 1u;
    for (std::size_t t = 0; t < k; ++t) {
      bad += channels.weight[c][t] == fc::w[c][t] ? 0u : 1u;
      bad += tensor.weight[c][t] == fc::tensor_w[c][t] ? 0u : 1u;
    }
  }
  return bad + differing(ctattn::project(x, channels), fc::y) + differing(ctattn::project(x, tensor), fc::tensor_y);
}

// ADD and MUL on int16 matrices of different scales.
template <typename Read>
constexpr std::size_t elementwise_mismatches(Read read) noexcept {
  namespace ew = fx::elementwise;
  const auto a = ctattn::quantize<ctattn::quantization{ew::sa}, std::int16_t>(read(ctattn::from_array(ew::a_real)));
  const auto b = ctattn::quantize<ctattn::quantization{ew::sb}, std::int16_t>(read(ctattn::from_array(ew::b_real)));
  return differing(ctattn::add<ctattn::quantization{ew::s_sum}>(a, b), ew::sum) +
         differing(ctattn::hadamard<ctattn::quantization{ew::s_product}>(a, b), ew::product);
}

// The int16 softmax: every row at scale S through the kernel, and two rows of fixed length through softmax_rows.
template <std::size_t Row, std::size_t Length, ctattn::quantization Q, typename Read>
constexpr std::size_t softmax_row_mismatches(Read read, std::size_t first) noexcept {
  namespace sm = fx::softmax;
  static_assert(sm::offsets[Row + 1] - sm::offsets[Row] == Length);
  ctattn::q16matrix<1, Length, Q> x{};
  for (std::size_t j = 0; j < Length; ++j)
    x.elements[0][j] = static_cast<std::int16_t>(read(sm::values[sm::offsets[Row] + j]));
  const auto w = ctattn::softmax_rows(x);
  std::uint32_t bad = 0;
  for (std::size_t j = 0; j < Length; ++j)
    bad += w.elements[0][j] == sm::weights[first + sm::offsets[Row] + j] ? 0u : 1u;
  return bad;
}
template <std::size_t S, typename Read>
constexpr std::size_t softmax_scale_mismatches(Read read) noexcept {
  namespace sm = fx::softmax;
  constexpr ctattn::quantization q{sm::scales[S]};
  constexpr std::size_t rows = std::size(sm::offsets) - 1;
  constexpr std::size_t first = S * std::size(sm::values);
  std::uint32_t bad = 0;
  std::int16_t x[128]{}, w[128]{};
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t length = sm::offsets[r + 1] - sm::offsets[r];
    for (std::size_t j = 0; j < length; ++j) x[j] = static_cast<std::int16_t>(read(sm::values[sm::offsets[r] + j]));
    ctattn::detail::kernels::int16_softmax_row<ctattn::detail::int16_softmax_input<q>>(x, w, length);
    for (std::size_t j = 0; j < length; ++j) bad += w[j] == sm::weights[first + sm::offsets[r] + j] ? 0u : 1u;
  }
  // Row 24: 64 equal values; row 25: 32767 among -32768s.
  return bad + softmax_row_mismatches<24, 64, q>(read, first) + softmax_row_mismatches<25, 16, q>(read, first);
}
template <typename Read, std::size_t... S>
constexpr std::size_t softmax_grid_mismatches(Read read, std::index_sequence<S...>) noexcept {
  return (softmax_scale_mismatches<S>(read) + ...);
}
template <typename Read>
constexpr std::size_t softmax_mismatches(Read read) noexcept {
  return softmax_grid_mismatches(read, std::make_index_sequence<std::size(fx::softmax::scales)>{});
}

// The build's 16x8 fully-connected kernel (the Cortex-M DSP's paired blocks, Helium's passes of 4 channels, AVX2's,
// AVX-512's or NEON's tiles, or the loop's int32 chunks of 256 terms) against sums taken term by term in int64, over
// rows in blocks with a rest (M 1 to 8, 13), every tail of 4 and of 8 terms (K 1 to 9, 31 to 33, 256, and 257: past the
// DSP kernel's widest rows and the loop's chunk; 47: a register of 32 terms and 15, two of 16 and 15; 520: two chunks
// of 256 and a rest; 47 and 520 not on Armv6-M) and of 4 channels (N 4 to 7, by K), with extreme values: -32768 inputs, -128 weights, int64 biases
// near 2^40.
template <std::size_t M, std::size_t K, typename Read>
constexpr std::size_t kernel_shape_mismatches(Read read) noexcept {
  constexpr std::size_t n = 4 + K % 4;
  struct operands {
    std::int16_t x[M][K];
    std::int8_t w[n][K];
    std::int64_t bias[n];
  } made{};
  auto& x = made.x;
  auto& w = made.w;
  auto& bias = made.bias;
  std::uint32_t state = static_cast<std::uint32_t>(M * 131 + K);
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state;
  };
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t t = 0; t < K; ++t) {
      x[r][t] = (r + t) % 11 == 0 ? std::int16_t{-32768} : static_cast<std::int16_t>(next() >> 16);
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t t = 0; t < K; ++t) {
      w[c][t] = (c + t) % 7 == 0 ? std::int8_t{-128} : static_cast<std::int8_t>(next() >> 24);
    }
    bias[c] = (static_cast<std::int64_t>(next() >> 8) - (1 << 23)) * (c == 2 ? 65536 : 1);
  }
  // Multipliers from 2^-30 to 2^6 (TFLite's 16x8 shifts are below 8).
  constexpr double reals[]{0.0003, 0.7, 1e-9, 3.5, 100.0};
  ctattn::math::quantized_multiplier m[n]{};
  for (std::size_t c = 0; c < n; ++c) m[c] = ctattn::math::quantize_multiplier(reals[c % std::size(reals)]);
  std::int16_t fast[M][n]{}, loop[M][n]{};
  const operands hidden = read(made);
  ctattn::detail::kernels::int16_fully_connected(hidden.x, hidden.w, hidden.bias, m, fast);
  // The reference: every sum in int64, term by term.
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      std::int64_t sum = bias[c];
      for (std::size_t t = 0; t < K; ++t) sum += std::int64_t{x[r][t]} * w[c][t];
      loop[r][c] = ctattn::detail::kernels::requantize_int64(sum, m[c]);
    }
  }
  std::uint32_t bad = 0;
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t c = 0; c < n; ++c) bad += fast[r][c] == loop[r][c] ? 0u : 1u;
  }
  return bad;
}
template <std::size_t K, typename Read, std::size_t... M>
constexpr std::size_t kernel_rows_mismatches(Read read, std::index_sequence<M...>) noexcept {
  return (kernel_shape_mismatches<M + 1, K>(read) + ...) + kernel_shape_mismatches<13, K>(read);
}
template <typename Read, std::size_t... K>
constexpr std::size_t kernel_mismatches(Read read, std::index_sequence<K...>) noexcept {
  return (kernel_rows_mismatches<K + 1>(read, std::make_index_sequence<8>{}) + ...) +
         kernel_rows_mismatches<31>(read, std::make_index_sequence<8>{}) +
         kernel_rows_mismatches<32>(read, std::make_index_sequence<8>{}) +
         kernel_rows_mismatches<33>(read, std::make_index_sequence<8>{}) + kernel_shape_mismatches<6, 256>(read) +
         kernel_shape_mismatches<7, 257>(read)
#if !defined(__ARM_ARCH_6M__)
         + kernel_shape_mismatches<5, 47>(read) + kernel_shape_mismatches<3, 520>(read)
#endif
      ;
}

// The build's int16 batch-matmul kernel (the Cortex-M DSP's `smlald` blocks of 3 rows, by words or, where K % 4 is 0
// and the operands are word-aligned, by `ldrd`; Helium's passes of 4 rows of b; the desktop backends' tiles of a split
// into bytes; or the loop) against sums taken term by term in int64, M 1 to 7 (blocks with every rest), K 1 to 9, 12
// and 33 (odd tails, every tail of 8, `ldrd`'s loop once and three times, unrolled and not; 12 and the shifted operands
// not on Armv6-M), 47 (registers of 16 or 32 terms and a tail of 15) and 520 (the desktop kernels' two chunks of 256
// and a rest; not on Armv6-M), and N 4 to 7 (by K), with -32768 x -32768 products, the operands word-aligned, and where K % 4 is 0 also
// not (`Shifted`).
template <std::size_t M, std::size_t K, bool Shifted, typename Read>
constexpr std::size_t product_shape_mismatches(Read read) noexcept {
  constexpr std::size_t n = 4 + K % 4;
  struct alignas(4) operands {
    std::int16_t before[Shifted ? 1 : 2];
    std::int16_t a[M][K];
    std::int16_t b[n][K];
  } made{};
  std::uint32_t state = static_cast<std::uint32_t>(M * 977 + K);
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t t = 0; t < K; ++t) {
      state = state * 1664525u + 1013904223u;
      made.a[r][t] = (r + t) % 5 == 0 ? std::int16_t{-32768} : static_cast<std::int16_t>(state >> 16);
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t t = 0; t < K; ++t) {
      state = state * 1664525u + 1013904223u;
      made.b[c][t] = (c + t) % 3 == 0 ? std::int16_t{-32768} : static_cast<std::int16_t>(state >> 16);
    }
  }
  const operands hidden = read(made);
  std::uint32_t bad = 0;
  for (const double real : {1e-9, 0.0003, 0.9, 60.0}) {
    const auto m = ctattn::math::quantize_multiplier(real);
    std::int16_t fast[M][n]{}, loop[M][n]{};
    ctattn::detail::kernels::int16_product_transposed(hidden.a, hidden.b, m, fast);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t c = 0; c < n; ++c) {
        std::int64_t sum = 0;
        for (std::size_t t = 0; t < K; ++t) sum += std::int64_t{made.a[r][t]} * made.b[c][t];
        loop[r][c] = ctattn::detail::kernels::requantize_int64(sum, m);
      }
    }
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t c = 0; c < n; ++c) bad += fast[r][c] == loop[r][c] ? 0u : 1u;
    }
  }
  return bad;
}
template <std::size_t K, typename Read, std::size_t... M>
constexpr std::size_t product_rows_mismatches(Read read, std::index_sequence<M...>) noexcept {
  // Rationale: shifted operands only where K % 4 is 0, the one case where alignment picks the path, and not on
  // Armv6-M, whose loop reads no word: the micro:bit's flash has no room for them.
#if defined(__ARM_ARCH_6M__)
  constexpr bool shifted = false;
#else
  constexpr bool shifted = K % 4 == 0;
#endif
  if constexpr (shifted) {
    return (product_shape_mismatches<M + 1, K, false>(read) + ...) +
           (product_shape_mismatches<M + 1, K, true>(read) + ...);
  } else {
    return (product_shape_mismatches<M + 1, K, false>(read) + ...);
  }
}
template <typename Read, std::size_t... K>
constexpr std::size_t product_kernel_mismatches(Read read, std::index_sequence<K...>) noexcept {
  return (product_rows_mismatches<K + 1>(read, std::make_index_sequence<7>{}) + ...) +
#if !defined(__ARM_ARCH_6M__)
         product_rows_mismatches<12>(read, std::make_index_sequence<7>{}) +
#endif
         product_rows_mismatches<33>(read, std::make_index_sequence<7>{})
#if !defined(__ARM_ARCH_6M__)
         + product_shape_mismatches<3, 47, false>(read) + product_shape_mismatches<2, 520, false>(read)
#endif
      ;
}

// The build's int16 ADD and MUL kernels (Helium's 8 lanes a step, or the loop) against TFLite's formula element by
// element (math::multiply_by_quantized_multiplier), over n = 1 to 17 elements (every tail of 8, and two whole steps
// with one more), with -32768 and 32767 among the inputs (saturating sums and products), at two sets of multipliers.
template <ctattn::math::quantized_multiplier A, ctattn::math::quantized_multiplier B,
          ctattn::math::quantized_multiplier Out, ctattn::math::quantized_multiplier M, std::size_t N, typename Read>
constexpr std::size_t elementwise_shape_mismatches(Read read) noexcept {
  struct operands {
    std::int16_t a[1][N];
    std::int16_t b[1][N];
  } made{};
  std::uint32_t state = static_cast<std::uint32_t>(N * 7919);
  for (std::size_t t = 0; t < N; ++t) {
    state = state * 1664525u + 1013904223u;
    made.a[0][t] = t % 5 == 1 ? std::int16_t{-32768} : static_cast<std::int16_t>(state >> 16);
    state = state * 1664525u + 1013904223u;
    made.b[0][t] = t % 4 == 2 ? std::int16_t{32767} : static_cast<std::int16_t>(state >> 16);
  }
  const operands hidden = read(made);
  std::int16_t sum[1][N]{}, product[1][N]{};
  ctattn::detail::kernels::int16_add_rows<A, B, Out>(hidden.a, hidden.b, sum);
  ctattn::detail::kernels::int16_multiply_rows<M>(hidden.a, hidden.b, product);
  const auto clamp = [](std::int32_t v) { return v < -32768 ? -32768 : (v > 32767 ? 32767 : v); };
  std::uint32_t bad = 0;
  for (std::size_t t = 0; t < N; ++t) {
    using ctattn::math::multiply_by_quantized_multiplier;
    const std::int32_t a = made.a[0][t], b = made.b[0][t];
    const std::int32_t s =
        multiply_by_quantized_multiplier(a * (1 << 15), A) + multiply_by_quantized_multiplier(b * (1 << 15), B);
    bad += sum[0][t] == clamp(multiply_by_quantized_multiplier(s, Out)) ? 0u : 1u;
    bad += product[0][t] == clamp(multiply_by_quantized_multiplier(a * b, M)) ? 0u : 1u;
  }
  return bad;
}
template <typename Read, std::size_t... N>
constexpr std::size_t elementwise_kernel_mismatches(Read read, std::index_sequence<N...>) noexcept {
  using ctattn::math::quantize_multiplier;
  return (elementwise_shape_mismatches<quantize_multiplier(0.3), quantize_multiplier(0.9999), quantize_multiplier(0.05),
                                       quantize_multiplier(0.00012), N + 1>(read) +
          ...) +
         (elementwise_shape_mismatches<quantize_multiplier(0.001), quantize_multiplier(0.5), quantize_multiplier(0.9),
                                       quantize_multiplier(0.7), N + 1>(read) +
          ...);
}

// The int16 outputs further than `allowed` output steps from the float64 reference, an output saturated at an int16
// end counting only if the reference lies inside the range by more than `allowed`.
template <typename Y, std::size_t R, std::size_t C>
constexpr std::size_t beyond_steps(const Y& y, const double (&reference)[R][C], double allowed) noexcept {
  static_assert(Y::rows == R && Y::cols == C);
  std::uint32_t bad = 0;
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      const double difference = (y.real(r, c) - reference[r][c]) / Y::quant.scale();
      const bool near = difference <= allowed && difference >= -allowed;
      const bool saturated =
          (y(r, c) == 32767 && difference <= allowed) || (y(r, c) == -32768 && difference >= -allowed);
      bad += near || saturated ? 0u : 1u;
    }
  }
  return bad;
}

// The int16 LayerNorm's constants against the reference's.
template <typename Norm, std::size_t C>
constexpr std::size_t norm16_constant_mismatches(const Norm& norm, const std::int32_t (&multiplier)[C],
                                                 const std::int32_t (&shift)[C], const std::int32_t (&bias)[C],
                                                 std::int64_t epsilon, std::int32_t epsilon_shift) noexcept {
  static_assert(Norm::width == C);
  std::uint32_t bad = norm.epsilon == epsilon && norm.epsilon_shift == epsilon_shift ? 0u : 1u;
  for (std::size_t j = 0; j < C; ++j) {
    bad += norm.multiplier[j] == multiplier[j] ? 0u : 1u;
    bad += norm.shift[j] == shift[j] ? 0u : 1u;
    bad += norm.bias[j] == bias[j] ? 0u : 1u;
  }
  return bad;
}
#define CTATTN_NORM16_CONSTANTS(NS) NS::multiplier, NS::shift, NS::bias_q, NS::epsilon, NS::epsilon_shift

// An int16 LayerNorm made from the reference's constants, each read through `read`.
template <typename Norm, std::size_t C, typename Read>
constexpr Norm norm16_of(const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                         const std::int32_t (&bias)[C], std::int64_t epsilon, std::int32_t epsilon_shift,
                         Read read) noexcept {
  Norm norm{};
  for (std::size_t j = 0; j < C; ++j) {
    norm.multiplier[j] = read(multiplier[j]);
    norm.shift[j] = read(shift[j]);
    norm.bias[j] = read(bias[j]);
  }
  norm.epsilon = read(epsilon);
  norm.epsilon_shift = read(epsilon_shift);
  return norm;
}

// ctattn's int16 LayerNorm bound (quantized/norm.hpp): 0.5 + 2^-6 output steps of the float64 LayerNorm.
inline constexpr double norm16_allowed = 0.5 + 1.0 / 64;

// The outputs of nn.LayerNorm(32) with torch's seeded weight and bias and of RMSNorm(32) with a seeded weight, in
// 16x8, the layers made from the reference's constants: bit for bit (a row of equal values, an outlier row, a row of
// nearly equal values among the inputs), and within the bound of float64.
inline constexpr ctattn::quantization ln_in{fx::layer_norm::s_in}, ln_out{fx::layer_norm::s_out},
    rn_in{fx::rms_norm::s_in}, rn_out{fx::rms_norm::s_out}, wl_in{fx::wide_layer_norm::s_in},
    wl_out{fx::wide_layer_norm::s_out};

template <typename Read>
constexpr std::size_t layer_norm_mismatches(Read read) noexcept {
  namespace ln = fx::layer_norm;
  namespace rn = fx::rms_norm;
  const auto norm = norm16_of<ctattn::q16layer_norm<32, ln_in, ln_out>>(CTATTN_NORM16_CONSTANTS(ln), read);
  const auto rms = norm16_of<ctattn::q16rms_norm<32, rn_in, rn_out>>(CTATTN_NORM16_CONSTANTS(rn), read);
  const auto y = ctattn::normalize(ctattn::quantize<ln_in, std::int16_t>(read(ctattn::from_array(ln::x))), norm);
  const auto z = ctattn::normalize(ctattn::quantize<rn_in, std::int16_t>(read(ctattn::from_array(rn::x))), rms);
  return differing(y, ln::output) + beyond_steps(y, ln::float_output, norm16_allowed) + differing(z, rn::output) +
         beyond_steps(z, rn::float_output, norm16_allowed);
}

// LayerNorm(130) without affine parameters on int16 rows at the bounds (an outlier of 32767 among -32768s,
// alternating ends, a ramp over the range, every value -32768).
template <typename Read>
constexpr std::size_t wide_layer_norm_mismatches(Read read) noexcept {
  namespace wl = fx::wide_layer_norm;
  constexpr std::size_t width = std::size(wl::x[0]);
  const auto norm = norm16_of<ctattn::q16layer_norm<width, wl_in, wl_out>>(CTATTN_NORM16_CONSTANTS(wl), read);
  ctattn::q16matrix<4, width, wl_in> x{};
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t j = 0; j < width; ++j) x.elements[r][j] = static_cast<std::int16_t>(read(wl::x[r][j]));
  }
  const auto y = ctattn::normalize(x, norm);
  return differing(y, wl::output) + beyond_steps(y, wl::float_output, norm16_allowed);
}

// ctattn's int16 activations: for relu, gelu, gelu_tanh and silu, the reference's table applied by activate (the
// int16 range's ends among the inputs): bit for bit, and within the table's bound of torch's float64 activation:
// 1 + 3072 s_in^2 max|f''| / s_out output steps (quantized/activation.hpp; max|f''| 0.8 for both GELUs, 0.5 for
// SiLU, and ReLU's chords exact).
#define CTATTN_ACTIVATION16_CASE(NAME)                                               \
  struct NAME##_case {                                                               \
    static constexpr float s_out = fx::activations::NAME::s_out;                     \
    static constexpr const auto& table = fx::activations::NAME::table;               \
    static constexpr const auto& output = fx::activations::NAME::output;             \
    static constexpr const auto& float_output = fx::activations::NAME::float_output; \
  };
CTATTN_ACTIVATION16_CASE(relu)
CTATTN_ACTIVATION16_CASE(gelu)
CTATTN_ACTIVATION16_CASE(gelu_tanh)
CTATTN_ACTIVATION16_CASE(silu)
#undef CTATTN_ACTIVATION16_CASE

inline constexpr ctattn::quantization activation16_in{fx::activations::s_in};

template <typename Case, typename Read>
constexpr std::size_t activation16_mismatches(double largest_curvature, Read read) noexcept {
  namespace act = fx::activations;
  constexpr ctattn::quantization q_out{Case::s_out};
  ctattn::q16activation<activation16_in, q_out> f{};
  for (std::size_t i = 0; i < 513; ++i) f.table[i] = static_cast<std::int16_t>(read(Case::table[i]));
  ctattn::q16matrix<std::size(act::x), std::size(act::x[0]), activation16_in> x{};
  for (std::size_t r = 0; r < decltype(x)::rows; ++r) {
    for (std::size_t c = 0; c < decltype(x)::cols; ++c)
      x.elements[r][c] = static_cast<std::int16_t>(read(act::x[r][c]));
  }
  const auto y = ctattn::activate(x, f);
  const double allowed =
      1.0 + 3072.0 * activation16_in.scale() * activation16_in.scale() * largest_curvature / q_out.scale();
  return differing(y, Case::output) + beyond_steps(y, Case::float_output, allowed);
}
template <typename Read>
constexpr std::size_t activations_mismatches(Read read) noexcept {
  return activation16_mismatches<relu_case>(0.0, read) + activation16_mismatches<gelu_case>(0.8, read) +
         activation16_mismatches<gelu_tanh_case>(0.8, read) + activation16_mismatches<silu_case>(0.5, read);
}

#if CTATTN_TEST_FLOAT_LAYERS
// The float layers quantized for 16x8 by the compiler: quantize_layer_norm and quantize_rms_norm<..., std::int16_t>
// give the reference's constants, quantize_activation<..., std::int16_t> its tables.
template <typename Read>
constexpr std::size_t quantized_layer_mismatches(Read read) noexcept {
  namespace ln = fx::layer_norm;
  namespace rn = fx::rms_norm;
  namespace wl = fx::wide_layer_norm;
  std::size_t bad = 0;
  ctattn::layer_norm<float, 32> layer{};
  for (std::size_t j = 0; j < 32; ++j) {
    layer.weight(0, j) = read(ln::weight[j]);
    layer.bias(0, j) = read(ln::bias[j]);
  }
  layer.eps = read(ln::eps);
  bad += norm16_constant_mismatches(
      ctattn::quantize_layer_norm<ctattn::quantization{ln::s_in}, ctattn::quantization{ln::s_out}, std::int16_t>(layer),
      CTATTN_NORM16_CONSTANTS(ln));
  ctattn::rms_norm<float, 32> rms{};
  for (std::size_t j = 0; j < 32; ++j) rms.weight(0, j) = read(rn::weight[j]);
  rms.eps = read(rn::eps);
  bad += norm16_constant_mismatches(
      ctattn::quantize_rms_norm<ctattn::quantization{rn::s_in}, ctattn::quantization{rn::s_out}, std::int16_t>(rms),
      CTATTN_NORM16_CONSTANTS(rn));
  ctattn::layer_norm<float, std::size(wl::x[0]), false> wide{};
  wide.eps = read(1e-5f);
  bad += norm16_constant_mismatches(
      ctattn::quantize_layer_norm<ctattn::quantization{wl::s_in}, ctattn::quantization{wl::s_out}, std::int16_t>(wide),
      CTATTN_NORM16_CONSTANTS(wl));
  const auto tables = [&]<typename Layer, typename Case>(Layer layer_f, Case) {
    const auto f =
        ctattn::quantize_activation<activation16_in, ctattn::quantization{Case::s_out}, std::int16_t>(read(layer_f));
    std::uint32_t wrong = 0;
    for (std::size_t i = 0; i < 513; ++i) wrong += f.table[i] == Case::table[i] ? 0u : 1u;
    return wrong;
  };
  return bad + tables(ctattn::relu{}, relu_case{}) + tables(ctattn::gelu{}, gelu_case{}) +
         tables(ctattn::gelu_tanh{}, gelu_tanh_case{}) + tables(ctattn::silu{}, silu_case{});
}
#endif
#undef CTATTN_NORM16_CONSTANTS

// 16x8 attention: nn.MultiheadAttention(16, 4)'s float weights quantized by quantize_linear<..., std::int16_t> with
// the reference's per-channel scales, the causal self-attention of the int16 input (projections, context and output
// bit for bit), and one head of width 16 without a mask through scaled_dot_product_attention.
namespace at = fx::attention;
inline constexpr ctattn::quantization attention_x{at::scales[0]}, attention_q{at::scales[1]},
    attention_k{at::scales[2]}, attention_v{at::scales[3]}, attention_scores{at::scales[4]},
    attention_context{at::scales[5]}, attention_out{at::scales[6]};

template <ctattn::quantization QIn, ctattn::quantization QOut, typename Read>
constexpr auto attention_projection(const float (&weight)[16][16], const float (&bias)[16], const float (&scales)[16],
                                    Read read) noexcept {
  ctattn::linear<float, 16, 16, ctattn::out_by_in, true> layer{};
  for (std::size_t c = 0; c < 16; ++c) {
    for (std::size_t t = 0; t < 16; ++t) layer.weight.elements[c][t] = read(weight[c][t]);
    layer.bias.elements[0][c] = read(bias[c]);
  }
  return ctattn::quantize_linear<QIn, QOut, std::int16_t>(layer, ctattn::channel_scales<16>{scales});
}

template <typename Read>
constexpr std::size_t attention_mismatches(Read read) noexcept {
  const auto weights = ctattn::make_qmulti_head_attention_weights<4>(
      attention_projection<attention_x, attention_q>(at::query_weight, at::query_bias, at::query_scales, read),
      attention_projection<attention_x, attention_k>(at::key_weight, at::key_bias, at::key_scales, read),
      attention_projection<attention_x, attention_v>(at::value_weight, at::value_bias, at::value_scales, read),
      attention_projection<attention_context, attention_out>(at::output_weight, at::output_bias, at::output_scales,
                                                             read));
  const auto x = ctattn::quantize<attention_x, std::int16_t>(read(ctattn::from_array(at::x)));
  const auto q = ctattn::project(x, weights.query);
  const auto k = ctattn::project(x, weights.key);
  const auto v = ctattn::project(x, weights.value);
  const auto y = ctattn::multi_head_attention<attention_scores>(x, weights, ctattn::causal);
  const auto wide = ctattn::scaled_dot_product_attention<ctattn::quantization{at::s_wide_scores},
                                                         ctattn::quantization{at::s_wide_out}>(q, k, v);
  // The method named (`softmax_method::tflite`, the one 16x8 attention has): the same bits.
  const auto named =
      ctattn::multi_head_attention<attention_scores, ctattn::softmax_method::tflite>(x, x, weights, ctattn::causal);
  return differing(q, at::q) + differing(k, at::k) + differing(v, at::v) + differing(y, at::output) +
         differing(named, at::output) + differing(wide, at::wide);
}

// Every case of this header, once (tests/support/case_list.hpp).
inline constexpr auto every_case = std::tuple{
    test_case{"quantize to int16", every_runner, [](auto read) { return quantize_mismatches(read); }},
    test_case{"int8 to int16 and back", every_runner, [](auto read) { return conversion_mismatches(read); }},
    test_case{"int16 products", every_runner,
              [](auto read) {
                return product_mismatches<product_case>(read) + product_mismatches<saturating_product_case>(read);
              }},
    test_case{"16x8 fully connected", every_runner, [](auto read) { return fully_connected_mismatches(read); }},
    test_case{"16x8 fully-connected kernel over every tail", compiled,
              [](auto read) { return kernel_mismatches(read, std::make_index_sequence<9>{}); }},
    test_case{"int16 product kernel over every tail", compiled,
              [](auto read) { return product_kernel_mismatches(read, std::make_index_sequence<9>{}); }},
    test_case{"16x8 linear layer, per channel and per tensor", every_runner,
              [](auto read) { return linear_mismatches(read); }},
    test_case{"int16 ADD and MUL", every_runner, [](auto read) { return elementwise_mismatches(read); }},
    test_case{"int16 ADD and MUL kernels over every tail", compiled,
              [](auto read) { return elementwise_kernel_mismatches(read, std::make_index_sequence<17>{}); }},
    test_case{"int16 softmax", every_runner, [](auto read) { return softmax_mismatches(read); }},
};

// ctattn's own int16 layers (LayerNorm, RMSNorm, activations) and the 16x8 attention, once: a list of their own, so
// that a board's image of the operators above stays within a Cortex-M0's 256 KB of flash.
inline constexpr auto layer_cases = std::tuple{
    test_case{"int16 LayerNorm and RMSNorm (ctattn's)", every_runner,
              [](auto read) { return layer_norm_mismatches(read); }},
    test_case{"int16 LayerNorm of rows at the bounds", every_runner,
              [](auto read) { return wide_layer_norm_mismatches(read); }},
    test_case{"int16 activations by interpolated table (ctattn's)", every_runner,
              [](auto read) { return activations_mismatches(read); }},
    test_case{"16x8 attention, multi-head causal and one head", every_runner,
              [](auto read) { return attention_mismatches(read); }},
#if CTATTN_TEST_FLOAT_LAYERS
    test_case{"float LayerNorm, RMSNorm and activations quantized for 16x8", every_runner,
              [](auto read) { return quantized_layer_mismatches(read); }},
#endif
};

}  // namespace ctattn_test::int16_cases
