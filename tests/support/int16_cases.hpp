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
#include <ctattn/math/fixed_point.hpp>
#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/int16.hpp>
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
  constexpr auto input = ctattn::math::quantize_multiplier(q.scale() / (10.0 / 65535.0));
  constexpr std::size_t rows = std::size(sm::offsets) - 1;
  constexpr std::size_t first = S * std::size(sm::values);
  std::uint32_t bad = 0;
  std::int16_t x[128]{}, w[128]{};
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t length = sm::offsets[r + 1] - sm::offsets[r];
    for (std::size_t j = 0; j < length; ++j) x[j] = static_cast<std::int16_t>(read(sm::values[sm::offsets[r] + j]));
    ctattn::detail::kernels::int16_softmax_row(x, w, length, input);
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

// The build's 16x8 fully-connected kernel (the Cortex-M DSP's paired blocks, Helium's passes of 4 channels, or the
// loop's int32 chunks of 256 terms) against sums taken term by term in int64, over rows in blocks with a rest (M 1 to
// 8, 13), every tail of 4 and of 8 terms (K 1 to 9, 31 to 33, 256, and 257: past the DSP kernel's widest rows and the
// loop's chunk) and of 4 channels (N 4 to 7, by K), with extreme values: -32768 inputs, -128 weights, int64 biases
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
         kernel_shape_mismatches<7, 257>(read);
}

// The build's int16 batch-matmul kernel (the Cortex-M DSP's `smlald` blocks of 3 rows, Helium's passes of 4 rows of
// b, or the loop) against sums taken term by term in int64, M 1 to 7 (blocks with every rest), K 1 to 9 and 33 (odd
// tails, every tail of 8) and N 4 to 7 (by K), with -32768 x -32768 products.
template <std::size_t M, std::size_t K, typename Read>
constexpr std::size_t product_shape_mismatches(Read read) noexcept {
  constexpr std::size_t n = 4 + K % 4;
  struct operands {
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
  return (product_shape_mismatches<M + 1, K>(read) + ...);
}
template <typename Read, std::size_t... K>
constexpr std::size_t product_kernel_mismatches(Read read, std::index_sequence<K...>) noexcept {
  return (product_rows_mismatches<K + 1>(read, std::make_index_sequence<7>{}) + ...) +
         product_rows_mismatches<33>(read, std::make_index_sequence<7>{});
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

}  // namespace ctattn_test::int16_cases
