// ctattn's int8 tier (include/ctattn/quantized/) against the reference values computed from the definitions with
// exact integers (tests/fixtures/quantized/quantized.hpp): quantization of float inputs and int8 products,
// counted as the number of int8 results that differ. Asserted at compile time (tests/static/quantized_test.cpp) and
// checked at run time (tests/runtime/quantized_test.cpp), where `Read` hides each input from the optimizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>

#include <ctattn/layers/activation.hpp>
#include <ctattn/layers/embedding.hpp>
#include <ctattn/layers/norm.hpp>
#include <ctattn/layers/patch.hpp>
#include <ctattn/layers/transformer.hpp>
#include <ctattn/math/exp.hpp>
#include <ctattn/math/isqrt.hpp>
#include <ctattn/matrix/from_array.hpp>
#include <ctattn/quantized/activation.hpp>
#include <ctattn/quantized/add.hpp>
#include <ctattn/quantized/attention.hpp>
#include <ctattn/quantized/calibrate.hpp>
#include <ctattn/quantized/embedding.hpp>
#include <ctattn/quantized/hadamard.hpp>
#include <ctattn/quantized/linear.hpp>
#include <ctattn/quantized/multiply.hpp>
#include <ctattn/quantized/norm.hpp>
#include <ctattn/quantized/patch.hpp>
#include <ctattn/quantized/pool.hpp>
#include <ctattn/quantized/qmatrix.hpp>
#include <ctattn/quantized/softmax.hpp>
#include <ctattn/quantized/transformer.hpp>

#include "fixtures/quantized/quantized.hpp"
#include "support/case_list.hpp"

namespace ctattn_test::quantized_cases {

namespace fx = ctattn_fixtures::quantized;

using ctattn_test::differing;

template <ctattn::quantization Q, std::size_t R, std::size_t C>
constexpr ctattn::qmatrix<R, C, Q> from_ints(const std::int32_t (&values)[R][C]) noexcept {
  ctattn::qmatrix<R, C, Q> q{};
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) q(r, c) = static_cast<std::int8_t>(values[r][c]);
  }
  return q;
}

// quantize<{0.05, -3}>(x) against the reference.
template <typename Read>
constexpr std::size_t quantize_mismatches(Read read) noexcept {
  return differing(ctattn::quantize<ctattn::quantization{0.05, -3}>(read(ctattn::from_array(fx::quantize_case::x))),
                   fx::quantize_case::q);
}

// One product case: the float inputs quantized by ctattn (must give the reference's int8 a and b), then multiplied,
// once with b and once with b's rows given through the transpose view, multiply(a, transpose(b^T)).
template <ctattn::quantization QA, ctattn::quantization QB, ctattn::quantization Out, typename Case, typename Read>
constexpr std::size_t product_mismatches(Case, Read read) noexcept {
  const auto a = ctattn::quantize<QA>(read(ctattn::from_array(Case::a_real())));
  const auto b = ctattn::quantize<QB>(read(ctattn::from_array(Case::b_real())));
  using b_type = std::remove_cvref_t<decltype(b)>;
  ctattn::basic_qmatrix<b_type::column_extent, b_type::row_extent, QB> b_rows{};
  for (std::size_t r = 0; r < b_type::rows; ++r) {
    for (std::size_t c = 0; c < b_type::cols; ++c) b_rows.elements[c][r] = b.elements[r][c];
  }
  return differing(a, Case::a()) + differing(b, Case::b()) + differing(ctattn::multiply<Out>(a, b), Case::product()) +
         differing(ctattn::multiply<Out>(a, ctattn::transpose(read(b_rows))), Case::product());
}

#define CTATTN_QUANTIZED_CASE(NS)                                               \
  struct NS##_case {                                                            \
    static constexpr const auto& a_real() noexcept { return fx::NS::a_real; }   \
    static constexpr const auto& b_real() noexcept { return fx::NS::b_real; }   \
    static constexpr const auto& a() noexcept { return fx::NS::a; }             \
    static constexpr const auto& b() noexcept { return fx::NS::b; }             \
    static constexpr const auto& product() noexcept { return fx::NS::product; } \
  };
CTATTN_QUANTIZED_CASE(small_product)
CTATTN_QUANTIZED_CASE(long_product)
CTATTN_QUANTIZED_CASE(saturating_product)
#undef CTATTN_QUANTIZED_CASE

template <typename Read>
constexpr std::size_t all_product_mismatches(Read read) noexcept {
  using ctattn::quantization;
  return product_mismatches<quantization{0.02, 5}, quantization{0.015, -2}, quantization{0.04, 3}>(small_product_case{},
                                                                                                   read) +
         product_mismatches<quantization{0.05, 0}, quantization{0.03, 7}, quantization{0.5, -10}>(long_product_case{},
                                                                                                  read) +
         product_mismatches<quantization{0.1, -1}, quantization{0.1, 2}, quantization{0.15, 0}>(
             saturating_product_case{}, read);
}

// Calibration: the observed range, the quantizations chosen from it, and a batch quantized with the calibrated one.
// Mismatches are counted (the scales must be the same doubles).
template <typename Read>
constexpr std::size_t calibration_mismatches(Read read) noexcept {
  namespace cal = fx::calibration;
  const auto b0 = read(ctattn::from_array(cal::batch0));
  const auto b1 = read(ctattn::from_array(cal::batch1));
  const auto b2 = read(ctattn::from_array(cal::batch2));
  const ctattn::value_range range = ctattn::observed_range(b0, b1, b2);
  const ctattn::quantization q = ctattn::quantization_for_range(range);
  const ctattn::quantization w = ctattn::symmetric_quantization(ctattn::largest_magnitude(b0, b1, b2));
  std::uint32_t bad = 0;  // 32 bits: see differing()
  bad += range.lo == cal::lo ? 0u : 1u;
  bad += range.hi == cal::hi ? 0u : 1u;
  bad += q.scale() == cal::scale ? 0u : 1u;
  bad += q.zero_point == cal::zero_point[0] ? 0u : 1u;
  bad += w.scale() == cal::symmetric_scale && w.zero_point == 0 ? 0u : 1u;
  return bad;
}

// The batch quantized with the calibration's quantization, which the compiler derives (so only at compile time can
// it be a template argument; the run-time test reads the batch at run time and quantizes with the same type).
inline constexpr ctattn::quantization calibrated = ctattn::quantization_for_range(
    ctattn::observed_range(ctattn::from_array(fx::calibration::batch0), ctattn::from_array(fx::calibration::batch1),
                           ctattn::from_array(fx::calibration::batch2)));

template <typename Read>
constexpr std::size_t calibrated_quantize_mismatches(Read read) noexcept {
  return differing(ctattn::quantize<calibrated>(read(ctattn::from_array(fx::calibration::batch0))),
                   fx::calibration::batch0_quantized);
}

// The int8 sum of two differently quantized inputs.
template <typename Read>
constexpr std::size_t add_mismatches(Read read) noexcept {
  const auto a = ctattn::quantize<ctattn::quantization{0.05, -3}>(read(ctattn::from_array(fx::sum::a_real)));
  const auto b = ctattn::quantize<ctattn::quantization{0.02, 10}>(read(ctattn::from_array(fx::sum::b_real)));
  return differing(ctattn::add<ctattn::quantization{0.06, 2}>(a, b), fx::sum::sum);
}

// The int8 element-wise product of two differently quantized inputs (TFLite's MUL).
template <typename Read>
constexpr std::size_t hadamard_mismatches(Read read) noexcept {
  namespace ep = fx::elementwise_product;
  const auto a = ctattn::quantize<ctattn::quantization{0.05, -3}>(read(ctattn::from_array(ep::a_real)));
  const auto b = ctattn::quantize<ctattn::quantization{0.03, 10}>(read(ctattn::from_array(ep::b_real)));
  return differing(ctattn::hadamard<ctattn::quantization{0.08, -5}>(a, b), ep::product);
}

// The int8 softmax: its exp table and its weights against the reference, and each weight within one output step
// (1/256) of the exact softmax of the int8 input's real values (computed here in double).
template <typename Read>
constexpr std::size_t softmax_mismatches(Read read) noexcept {
  constexpr ctattn::quantization q{0.08, 3};
  const auto x = ctattn::quantize<q>(read(ctattn::from_array(fx::softmax::x)));
  const auto w = ctattn::softmax_rows(x);
  std::size_t bad = differing(w, fx::softmax::weights);
  for (std::size_t d = 0; d < 256; ++d) {
    bad += ctattn::detail::softmax_exp_table<q>[d] == fx::softmax::table[d] ? 0u : 1u;
  }
  for (std::size_t r = 0; r < decltype(x)::rows; ++r) {
    double total = 0;
    for (std::size_t c = 0; c < decltype(x)::cols; ++c) total += ctattn::math::exp(x.real(r, c));
    for (std::size_t c = 0; c < decltype(x)::cols; ++c) {
      const double exact = ctattn::math::exp(x.real(r, c)) / total;
      const double difference = w.real(r, c) - exact;
      bad += (difference < 0 ? -difference : difference) <= 1.0 / 256 ? 0u : 1u;
    }
  }
  return bad;
}

// TFLite's int8 softmax (`softmax_method::tflite`) against its reference, bit for bit: every row of the fixture at
// every scale, through the kernel with the table the library makes for the scale (rows of 1 to 600 entries).
template <std::size_t S, typename Read>
constexpr std::size_t tflite_softmax_scale_mismatches(Read read) noexcept {
  namespace ts = fx::tflite_softmax;
  using kernel = ctattn::detail::softmax_kernel<ctattn::softmax_method::tflite, ctattn::quantization{ts::scales[S], 0}>;
  constexpr std::size_t rows = std::size(ts::offsets) - 1;
  constexpr std::size_t first = S * ts::offsets[rows];
  std::size_t bad = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    std::int8_t x[600]{};
    std::int8_t w[600]{};
    const std::size_t length = ts::offsets[r + 1] - ts::offsets[r];
    for (std::size_t j = 0; j < length; ++j) x[j] = static_cast<std::int8_t>(read(ts::values[ts::offsets[r] + j]));
    ctattn::detail::kernels::int8_softmax_row<typename kernel::method>(x, w, 0, length, kernel::table.data(), nullptr);
    for (std::size_t j = 0; j < length; ++j) bad += w[j] == ts::weights[first + ts::offsets[r] + j] ? 0u : 1u;
  }
  return bad;
}
template <typename Read, std::size_t... S>
constexpr std::size_t tflite_softmax_grid_mismatches(Read read, std::index_sequence<S...>) noexcept {
  return (tflite_softmax_scale_mismatches<S>(read) + ...);
}
template <typename Read>
constexpr std::size_t tflite_softmax_mismatches(Read read) noexcept {
  return tflite_softmax_grid_mismatches(read, std::make_index_sequence<std::size(fx::tflite_softmax::scales)>{});
}

// The rows where the two softmax methods differ (each by one step in one weight), through the public functions:
// `softmax_rows<Method>` of the row, and `scaled_dot_product_attention<..., Method>` of one query that scores
// each key as its row value (q = 1, k = the row in the scores' scale) over values that pass each weight through
// (v the identity, scale 1/127; the output's scale 1/256 and zero point -128 are the weights'). Each against its
// method's reference: a method that did not reach the softmax would give the other's bits.
template <std::size_t Row, std::size_t Length, ctattn::softmax_method Method, typename Read>
constexpr std::size_t differing_row_mismatches(Read read, const std::int32_t (&want)[26]) noexcept {
  namespace ts = fx::tflite_softmax;
  constexpr std::size_t first = ts::differ_offsets[Row];
  static_assert(ts::differ_offsets[Row + 1] - first == Length);
  constexpr ctattn::quantization scores{ts::differ_scales[Row], 0};
  ctattn::basic_qmatrix<std::size_t{1}, Length, scores> row{};
  ctattn::basic_qmatrix<std::size_t{1}, std::size_t{1}, ctattn::quantization{1.0, 0}> q{};
  ctattn::basic_qmatrix<Length, std::size_t{1}, scores> k{};
  ctattn::basic_qmatrix<Length, Length, ctattn::quantization{1.0 / 127.0, 0}> v{};
  q.elements[0][0] = read(std::int8_t{1});
  for (std::size_t j = 0; j < Length; ++j) {
    row.elements[0][j] = static_cast<std::int8_t>(read(ts::differ_values[first + j]));
    k.elements[j][0] = row.elements[0][j];
    v.elements[j][j] = 127;
  }
  const auto w = ctattn::softmax_rows<Method>(row);
  const auto out = ctattn::scaled_dot_product_attention<scores, ctattn::softmax_output_quantization, Method>(q, k, v);
  std::size_t bad = 0;
  for (std::size_t j = 0; j < Length; ++j) {
    bad += w.elements[0][j] == want[first + j] ? 0u : 1u;
    bad += out.elements[0][j] == want[first + j] ? 0u : 1u;
  }
  return bad;
}
template <ctattn::softmax_method Method, typename Read>
constexpr std::size_t differing_rows_mismatches(Read read, const std::int32_t (&want)[26]) noexcept {
  return differing_row_mismatches<0, 8, Method>(read, want) + differing_row_mismatches<1, 4, Method>(read, want) +
         differing_row_mismatches<2, 4, Method>(read, want) + differing_row_mismatches<3, 5, Method>(read, want) +
         differing_row_mismatches<4, 5, Method>(read, want);
}
template <typename Read>
constexpr std::size_t softmax_method_mismatches(Read read) noexcept {
  namespace ts = fx::tflite_softmax;
  return differing_rows_mismatches<ctattn::softmax_method::rounded>(read, ts::differ_rounded) +
         differing_rows_mismatches<ctattn::softmax_method::tflite>(read, ts::differ_tflite);
}

// Int8 attention against the reference; and the cost of quantizing: the dequantized output within 0.02 of the
// float attention (float64, torch) on every element (measured: 0.0098, 1.8 steps of the output scale 0.0055).
// Int8 attention of a fixture's Q, K, V (float, read through `read`), each quantized over its observed range, with the
// scores' and output's quantizations from the float computation's ranges: outputs that differ from the reference's
// int8 bits, plus outputs further than `tolerance` from the float attention.
template <const auto& Q, const auto& K, const auto& V, ctattn::quantization Scores, ctattn::quantization Out,
          const auto& Expected, const auto& FloatOutput,
          ctattn::softmax_method Softmax = ctattn::softmax_method::rounded, typename Read>
constexpr std::size_t int8_attention_mismatches(Read read, double tolerance) noexcept {
  using ctattn::from_array, ctattn::observed_range, ctattn::quantization_for_range;
  constexpr ctattn::quantization q_in = quantization_for_range(observed_range(from_array(Q)));
  constexpr ctattn::quantization k_in = quantization_for_range(observed_range(from_array(K)));
  constexpr ctattn::quantization v_in = quantization_for_range(observed_range(from_array(V)));
  const auto q = ctattn::quantize<q_in>(read(from_array(Q)));
  const auto k = ctattn::quantize<k_in>(read(from_array(K)));
  const auto v = ctattn::quantize<v_in>(read(from_array(V)));
  const auto out = ctattn::scaled_dot_product_attention<Scores, Out, Softmax>(q, k, v);
  std::size_t bad = differing(out, Expected);
  for (std::size_t i = 0; i < decltype(out)::rows; ++i) {
    for (std::size_t c = 0; c < decltype(out)::cols; ++c) {
      const double difference = out.real(i, c) - FloatOutput[i][c];
      bad += (difference < 0 ? -difference : difference) <= tolerance ? 0u : 1u;
    }
  }
  return bad;
}

// Int8 attention of 5 queries over 7 keys, at compile time and at run time: within 0.02 of the float attention.
namespace att = fx::attention;
template <typename Read>
constexpr std::size_t attention_mismatches(Read read) noexcept {
  return int8_attention_mismatches<
      att::q, att::k, att::v, ctattn::quantization_for_range(att::scores_lo, att::scores_hi),
      ctattn::quantization_for_range(att::out_lo, att::out_hi), att::output, att::float_output>(read, 0.02);
}

// The same at run time only, for 20 queries of width 70 over 37 keys with values of width 33: products from 8 rows
// on run on the packed tiles with the run-time operand packed on the stack, and rows of 37 scores take the vector
// softmax where the build has one; every output against the reference, bit for bit, and within 0.03 of the float
// attention (measured: 0.023).
namespace large_att = fx::large_attention;
template <typename Read>
std::size_t large_attention_mismatches(Read read) noexcept {
  return int8_attention_mismatches<large_att::q, large_att::k, large_att::v,
                                   ctattn::quantization_for_range(large_att::scores_lo, large_att::scores_hi),
                                   ctattn::quantization_for_range(large_att::out_lo, large_att::out_hi),
                                   large_att::output, large_att::float_output>(read, 0.03);
}

// The same attention with TFLite's softmax, against the reference computed with it.
template <typename Read>
std::size_t tflite_attention_mismatches(Read read) noexcept {
  return int8_attention_mismatches<large_att::q, large_att::k, large_att::v,
                                   ctattn::quantization_for_range(large_att::scores_lo, large_att::scores_hi),
                                   ctattn::quantization_for_range(large_att::out_lo, large_att::out_hi),
                                   fx::tflite_attention::output, large_att::float_output,
                                   ctattn::softmax_method::tflite>(read, 0.03);
}

// The int8 linear layer: nn.Linear(16, 6) quantized per channel by the compiler, its input and output
// quantizations calibrated on the fixture's x and float output y.
namespace lin = fx::linear;

// A float nn.Linear(In, Out) with biases from a fixture's out x in weight and bias arrays, taking Out rows from row
// `first` on (a part of a stacked weight, such as in_proj_weight).
template <std::size_t In, std::size_t Out, std::size_t Rows>
constexpr ctattn::linear<float, In, Out, ctattn::out_by_in, true> torch_linear(const float (&weight)[Rows][In],
                                                                               const float (&bias)[Rows],
                                                                               std::size_t first = 0) noexcept {
  ctattn::linear<float, In, Out, ctattn::out_by_in, true> l{};
  for (std::size_t c = 0; c < Out; ++c) {
    for (std::size_t k = 0; k < In; ++k) l.weight(c, k) = weight[first + c][k];
    l.bias(0, c) = bias[first + c];
  }
  return l;
}

inline constexpr auto float_layer = torch_linear<16, 6>(lin::weight, lin::bias);
inline constexpr ctattn::quantization linear_in =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(lin::x)));
inline constexpr ctattn::quantization linear_out =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(lin::y)));
inline constexpr auto linear_scales = ctattn::weight_scales(float_layer.weight);

template <typename Read>
constexpr std::size_t linear_mismatches(Read read) noexcept {
  const auto layer = ctattn::quantize_linear<linear_in, linear_out>(read(float_layer));
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t c = 0; c < 6; ++c) {
    bad += linear_scales[c] == lin::scales[c] ? 0u : 1u;
    bad += layer.multipliers[c] ==
                   ctattn::math::quantize_multiplier(linear_in.scale() * lin::scales[c] / linear_out.scale())
               ? 0u
               : 1u;
    bad += layer.bias(c) == lin::bias_q[c] ? 0u : 1u;
    for (std::size_t k = 0; k < 16; ++k) bad += std::int32_t{layer.weight[c][k]} == lin::weight_q[c][k] ? 0u : 1u;
  }
  const auto x = ctattn::quantize<linear_in>(read(ctattn::from_array(lin::x)));
  decltype(ctattn::project(x, layer)) into{};  // project_into: the same bits in the caller's matrix
  ctattn::project_into(into, x, layer);
  return bad + differing(x, lin::x_q) + differing(ctattn::project(x, layer), lin::y_q) + differing(into, lin::y_q);
}

// The same kind of layer with int4 weights (fx::int4_linear): nn.Linear(13, 10), whose rows split bytes, quantized
// by the compiler against the reference's scales, int4 values and TFLite packing; its outputs, and those of the
// packing a file may hold (weights of -8), against the reference's per-channel product of the unpacked values.
namespace i4 = fx::int4_linear;
inline constexpr auto int4_float_layer = torch_linear<13, 10>(i4::weight, i4::bias);
inline constexpr ctattn::quantization int4_in =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(i4::x)));
inline constexpr ctattn::quantization int4_out =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(i4::y)));

template <std::size_t Bytes>
constexpr ctattn::int4_weights<10, 13> int4_from(const std::int32_t (&bytes)[Bytes]) noexcept {
  static_assert(Bytes == ctattn::int4_weights<10, 13>::bytes);
  ctattn::int4_weights<10, 13> w{};
  for (std::size_t i = 0; i < Bytes; ++i) w.packed[i] = static_cast<std::uint8_t>(bytes[i]);
  return w;
}

template <typename Read>
constexpr std::size_t int4_linear_mismatches(Read read) noexcept {
  constexpr auto four = ctattn::weight_format::int4;
  const auto layer = ctattn::quantize_linear<int4_in, int4_out, four>(read(int4_float_layer));
  static_assert(sizeof(layer.weight) == 65);
  const auto scales = ctattn::weight_scales(int4_float_layer.weight, four);
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t c = 0; c < 10; ++c) {
    bad += scales[c] == i4::scales[c] ? 0u : 1u;
    bad += layer.bias(c) == i4::bias_q[c] ? 0u : 1u;
    for (std::size_t k = 0; k < 13; ++k) bad += layer.weight_value(c, k) == i4::weight_q[c][k] ? 0u : 1u;
  }
  for (std::size_t i = 0; i < 65; ++i) bad += std::int32_t{layer.weight.packed[i]} == i4::packed[i] ? 0u : 1u;
  const auto x = ctattn::quantize<int4_in>(read(ctattn::from_array(i4::x)));
  std::int32_t biases[10]{};
  for (std::size_t c = 0; c < 10; ++c) biases[c] = static_cast<std::int32_t>(i4::bias_q[c]);
  const ctattn::qlinear<13, 10, int4_in, int4_out, four> from_file{read(int4_from(i4::file_packed)), biases,
                                                                   ctattn::channel_scales<10>{i4::scales}};
  return bad + differing(x, i4::x_q) + differing(ctattn::project(x, layer), i4::y_q) +
         differing(ctattn::project(x, from_file), i4::file_y_q);
}

// The same layer per tensor with float32 scales (i4::tensor_*), as TFLite Micro takes int4 weights: the weights, the
// bias and the one multiplier (from the scales' float32 product) against the reference, then the outputs.
inline constexpr ctattn::quantization int4_tensor_in{static_cast<float>(i4::tensor_in_scale), int4_in.zero_point};
inline constexpr ctattn::quantization int4_tensor_out{static_cast<float>(i4::tensor_out_scale), int4_out.zero_point};

template <typename Read>
constexpr std::size_t int4_per_tensor_mismatches(Read read) noexcept {
  const auto layer = ctattn::quantize_linear<int4_tensor_in, int4_tensor_out, ctattn::weight_format::int4,
                                             ctattn::weight_granularity::per_tensor>(
      read(int4_float_layer), ctattn::channel_scales<1>{{static_cast<float>(i4::tensor_scale)}});
  static_assert(sizeof(layer.multipliers) == sizeof(ctattn::math::quantized_multiplier));
  std::uint32_t bad = 0;  // 32 bits: see differing()
  bad += layer.multipliers[0] ==
                 ctattn::math::quantized_multiplier{i4::tensor_requantization[0], i4::tensor_requantization[1]}
             ? 0u
             : 1u;
  for (std::size_t c = 0; c < 10; ++c) bad += layer.bias(c) == i4::tensor_bias_q[c] ? 0u : 1u;
  for (std::size_t i = 0; i < 65; ++i) bad += std::int32_t{layer.weight.packed[i]} == i4::tensor_packed[i] ? 0u : 1u;
  const auto x = ctattn::quantize<int4_tensor_in>(read(ctattn::from_array(i4::x)));
  return bad + differing(x, i4::tensor_x_q) + differing(ctattn::project(x, layer), i4::tensor_y_q);
}

// A patch embedding in int8 (fx::patch_embedding): nn.Conv2d(2, 6, 2, stride=2) over a 4 x 6 image quantized per
// channel by the compiler; the image's patches against torch's unfold of the int8 image, the tokens against the
// reference's per-channel product.
namespace pe = fx::patch_embedding;
using float_patch_layer = ctattn::patch_embedding_2d<float, 2, 4, 6, 2, 2, 6>;
inline constexpr float_patch_layer float_patches = [] {
  float_patch_layer l{};
  for (std::size_t d = 0; d < 6; ++d) {
    for (std::size_t k = 0; k < 8; ++k) l.projection.weight(d, k) = pe::weight[d][k / 4][k / 2 % 2][k % 2];
    l.projection.bias(0, d) = pe::bias[d];
  }
  return l;
}();
inline constexpr ctattn::quantization patch_in =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(pe::pixels)));
inline constexpr ctattn::quantization patch_out =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(pe::y)));

template <typename Read>
constexpr std::size_t patch_embedding_mismatches(Read read) noexcept {
  const auto layer = ctattn::quantize_patch_embedding<patch_in, patch_out>(read(float_patches));
  const auto x = ctattn::quantize<patch_in>(read(ctattn::from_array(pe::pixels)));
  return differing(x, pe::pixels_q) + differing(decltype(layer)::patches(x), pe::patches_q) +
         differing(layer.forward(x), pe::y_q);
}

// A class token before int8 rows of another quantization, and the int8 mean of the result (fx::class_token_and_mean);
// with rows already in the token's quantization, the rows are copied as they are.
namespace ctm = fx::class_token_and_mean;

// Rationale: at namespace scope; Clang 14 refuses a function's constexpr local as a template argument of a call in a
// template.
inline constexpr ctattn::quantization q_rows{0.01, 4}, q_tokens{0.02, -6}, q_mean{0.005, 3};

template <typename Read>
constexpr std::size_t class_token_and_mean_mismatches(Read read) noexcept {
  ctattn::class_token<float, 8> cls{};
  cls.token = ctattn::from_array(ctm::token);
  const auto rows = ctattn::quantize<q_rows>(read(ctattn::from_array(ctm::rows)));
  const auto tokens = ctattn::quantize_class_token<q_rows, q_tokens>(read(cls)).forward(rows);
  ctattn::qmatrix<5, 8, q_tokens> moved{};
  for (std::size_t r = 0; r < 5; ++r) {
    for (std::size_t c = 0; c < 8; ++c) moved(r, c) = tokens(r + 1, c);
  }
  const auto copied = ctattn::quantize_class_token<q_tokens, q_tokens>(read(cls)).forward(read(moved));
  const auto first = ctattn::qclass_token_pool<q_tokens>{}.forward(tokens);
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t c = 0; c < 8; ++c) bad += first(0, c) == tokens(0, c) ? 0u : 1u;
  return bad + differing(tokens, ctm::tokens_q) + differing(copied, ctm::tokens_q) +
         differing(ctattn::qmean_pool<q_tokens, q_mean>{}.forward(read(tokens)), ctm::mean_q);
}

// TFLite's float32 steps with float32 scales, as a .tflite file holds them (fx::tflite_float32): quantize's division
// for four quantizations, per-channel weights divided by their channel's float32 scale, and a product whose
// BATCH_MATMUL multiplier takes the float32 product of the input scales. The fixture has values where a double step
// gives another int8 in each part.
namespace tfl = fx::tflite_float32;

template <std::size_t G, typename Read>
constexpr std::size_t tflite_quantize_row_mismatches(Read read) noexcept {
  const auto q =
      ctattn::quantize<ctattn::quantization{tfl::scales[G], tfl::zeros[G]}>(read(ctattn::from_array(tfl::x)));
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t i = 0; i < 16; ++i) bad += std::int32_t{q(G, i)} == tfl::q[G][i] ? 0u : 1u;
  return bad;
}

template <typename Read>
constexpr std::size_t tflite_float32_mismatches(Read read) noexcept {
  std::size_t bad = tflite_quantize_row_mismatches<0>(read) + tflite_quantize_row_mismatches<1>(read) +
                    tflite_quantize_row_mismatches<2>(read) + tflite_quantize_row_mismatches<3>(read);
  ctattn::linear<float, 10, 6, ctattn::out_by_in, false> l{};
  for (std::size_t c = 0; c < 6; ++c) {
    for (std::size_t k = 0; k < 10; ++k) l.weight(c, k) = tfl::weight[c][k];
  }
  constexpr ctattn::quantization any_in{0.02f, 0};
  constexpr ctattn::quantization any_out{0.05f, 0};
  const auto layer = ctattn::quantize_linear<any_in, any_out>(read(l), ctattn::channel_scales<6>{tfl::channel_scales});
  std::uint32_t weights_bad = 0;  // 32 bits: see differing()
  for (std::size_t c = 0; c < 6; ++c) {
    for (std::size_t k = 0; k < 10; ++k) {
      weights_bad += std::int32_t{layer.weight[c][k]} == tfl::weight_q[c][k] ? 0u : 1u;
    }
  }
  constexpr ctattn::quantization qa{tfl::a_scale, tfl::zero_points[0]};
  constexpr ctattn::quantization qb{tfl::b_scale, tfl::zero_points[1]};
  constexpr ctattn::quantization qo{tfl::out_scale, tfl::zero_points[2]};
  const auto a = read(from_ints<qa>(tfl::a));
  const auto b = read(from_ints<qb>(tfl::b));
  ctattn::qmatrix<5, 24, qb> b_rows{};
  for (std::size_t r = 0; r < 24; ++r) {
    for (std::size_t c = 0; c < 5; ++c) b_rows.elements[c][r] = b.elements[r][c];
  }
  return bad + weights_bad + differing(ctattn::multiply<qo>(a, b), tfl::product) +
         differing(ctattn::multiply<qo>(a, ctattn::transpose(read(b_rows))), tfl::product);
}

// Int8 attention with masks against the reference: causal, causal_sliding_window<2> and a boolean mask whose row 2
// sees no key (its output is real 0); each case's scores calibrated on its visible float scores. The cost of
// quantizing: the dequantized output within `steps` of its output scale of the float attention (torch, float64).
namespace matt = fx::masked_attention;
inline constexpr ctattn::quantization masked_q =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(matt::q)));
inline constexpr ctattn::quantization masked_k =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(matt::k)));
inline constexpr ctattn::quantization masked_v =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(matt::v)));

inline constexpr ctattn::boolean_mask<7, 7> masked_pattern = [] {
  ctattn::boolean_mask<7, 7> m{};
  for (std::size_t i = 0; i < 7; ++i) {
    for (std::size_t j = 0; j < 7; ++j) m.allowed_keys[i][j] = matt::pattern[i][j] != 0;
  }
  return m;
}();

// The int8 output's mismatches with the reference, plus its elements farther than `steps` output steps from float.
template <typename Out, std::size_t R, std::size_t C>
constexpr std::size_t int8_against(const Out& out, const std::int32_t (&want)[R][C], const double (&real)[R][C],
                                   double steps) noexcept {
  std::size_t bad = differing(out, want);
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t c = 0; c < C; ++c) {
      const double difference = out.real(i, c) - real[i][c];
      bad += (difference < 0 ? -difference : difference) <= steps * Out::quant.scale() ? 0u : 1u;
    }
  }
  return bad;
}

template <ctattn::quantization Scores, ctattn::quantization Out, typename Mask, typename Read>
constexpr std::size_t masked_case(const Mask& mask, const std::int32_t (&want)[7][6], const double (&real)[7][6],
                                  Read read) noexcept {
  const auto q = ctattn::quantize<masked_q>(read(ctattn::from_array(matt::q)));
  const auto k = ctattn::quantize<masked_k>(read(ctattn::from_array(matt::k)));
  const auto v = ctattn::quantize<masked_v>(read(ctattn::from_array(matt::v)));
  return int8_against(ctattn::scaled_dot_product_attention<Scores, Out>(q, k, v, read(mask)), want, real, 3.0);
}

template <typename Read>
constexpr std::size_t masked_attention_mismatches(Read read) noexcept {
  using ctattn::quantization_for_range;
  return masked_case<quantization_for_range(matt::causal_scores_lo, matt::causal_scores_hi),
                     quantization_for_range(matt::causal_out_lo, matt::causal_out_hi)>(
             ctattn::causal, matt::causal_output, matt::causal_float_output, read) +
         masked_case<quantization_for_range(matt::causal_window_scores_lo, matt::causal_window_scores_hi),
                     quantization_for_range(matt::causal_window_out_lo, matt::causal_window_out_hi)>(
             ctattn::causal_sliding_window<2>, matt::causal_window_output, matt::causal_window_float_output, read) +
         masked_case<quantization_for_range(matt::boolean_scores_lo, matt::boolean_scores_hi),
                     quantization_for_range(matt::boolean_out_lo, matt::boolean_out_hi)>(
             masked_pattern, matt::boolean_output, matt::boolean_float_output, read);
}

// Int8 attention over 70 queries and keys, which the all-pairs path scores in blocks of
// `int8_attention_query_rows` queries (64 on a desktop, 6 on a Cortex-M; a last block of 6 or 4), against the
// per-query path, which a sliding window wider than the sequence takes: the same keys, so the same bits, without
// and with the causal mask, for scaled_dot_product_attention (V copied per head) and for two-head self-attention
// (V transposed once). Int8 data from a fixed generator; 0 when every output agrees. `causal_too` false: the
// unmasked pair alone (the static test's, within Clang's default constexpr step limit).
inline constexpr std::size_t blocked_n = 70;
constexpr ctattn::matrix<float, blocked_n, 8> blocked_input(std::uint32_t seed) noexcept {
  ctattn::matrix<float, blocked_n, 8> m{};
  std::uint32_t state = seed;
  for (std::size_t r = 0; r < blocked_n; ++r) {
    for (std::size_t c = 0; c < 8; ++c) {
      state = state * 1664525u + 1013904223u;
      m(r, c) = static_cast<float>(static_cast<std::int32_t>(state >> 24) - 128) / 64.0f;
    }
  }
  return m;
}
// Elements of two int8 matrices of one type whose bits differ.
template <typename M>
constexpr std::size_t differing_elements(const M& a, const M& b) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t c = 0; c < M::cols; ++c) n += a.elements[i][c] != b.elements[i][c] ? 1u : 0u;
  }
  return n;
}
// A float nn.Linear(8, 8) with weights in [-0.5, 0.5) from the generator.
constexpr ctattn::linear<float, 8, 8, ctattn::out_by_in, true> blocked_linear(std::uint32_t seed) noexcept {
  ctattn::linear<float, 8, 8, ctattn::out_by_in, true> l{};
  const auto w = blocked_input(seed);
  for (std::size_t o = 0; o < 8; ++o) {
    for (std::size_t i = 0; i < 8; ++i) l.weight(o, i) = w(o, i) / 4.0f;
    l.bias(0, o) = w(o + 8, 0) / 8.0f;
  }
  return l;
}
template <typename Read>
constexpr std::size_t blocked_attention_mismatches(Read read, bool causal_too = true) noexcept {
  constexpr ctattn::quantization q_x{2.0 / 127, 0};
  constexpr ctattn::quantization q_v{2.0 / 127, 5};
  constexpr ctattn::quantization q_scores{0.05, -10};
  constexpr ctattn::quantization q_out{0.02, 3};
  const auto q = ctattn::quantize<q_x>(read(blocked_input(1)));
  const auto k = ctattn::quantize<q_x>(read(blocked_input(2)));
  const auto v = ctattn::quantize<q_v>(read(blocked_input(3)));
  constexpr auto wide = ctattn::sliding_window<blocked_n>;
  constexpr auto wide_causal = ctattn::causal_sliding_window<blocked_n>;
  std::size_t bad = differing_elements(ctattn::scaled_dot_product_attention<q_scores, q_out>(q, k, v),
                                       ctattn::scaled_dot_product_attention<q_scores, q_out>(q, k, v, wide));
  if (causal_too) {
    bad += differing_elements(ctattn::scaled_dot_product_attention<q_scores, q_out>(q, k, v, ctattn::causal),
                              ctattn::scaled_dot_product_attention<q_scores, q_out>(q, k, v, wide_causal));
  }
  return bad;
}
// The same for two-head self-attention (run time only: four evaluations exceed the compilers' default limits).
template <typename Read>
constexpr std::size_t blocked_multi_head_mismatches(Read read) noexcept {
  constexpr ctattn::quantization q_x{2.0 / 127, 0};
  constexpr ctattn::quantization q_v{2.0 / 127, 5};
  constexpr ctattn::quantization q_scores{0.05, -10};
  constexpr ctattn::quantization q_out{0.02, 3};
  constexpr auto wide = ctattn::sliding_window<blocked_n>;
  constexpr auto wide_causal = ctattn::causal_sliding_window<blocked_n>;
  const auto q = ctattn::quantize<q_x>(read(blocked_input(1)));
  std::size_t bad = 0;
  constexpr ctattn::quantization q_proj{0.03, -2};
  const auto weights =
      ctattn::make_qmulti_head_attention_weights<2>(ctattn::quantize_linear<q_x, q_proj>(read(blocked_linear(4))),
                                                    ctattn::quantize_linear<q_x, q_proj>(read(blocked_linear(5))),
                                                    ctattn::quantize_linear<q_x, q_v>(read(blocked_linear(6))),
                                                    ctattn::quantize_linear<q_out, q_proj>(read(blocked_linear(7))));
  bad += differing_elements(ctattn::multi_head_attention<q_scores>(q, weights),
                            ctattn::multi_head_attention<q_scores>(q, weights, wide));
  bad += differing_elements(ctattn::multi_head_attention<q_scores>(q, weights, ctattn::causal),
                            ctattn::multi_head_attention<q_scores>(q, weights, wide_causal));
  return bad;
}

// The int8 encoder layer's feed-forward block over 70 rows in blocks of 6 (as on a Cortex-M, a last block of 4) and
// of 64 (a last block of 6), against all rows at once: the same bits. 0 when every output agrees.
template <typename Read>
constexpr std::size_t blocked_feed_forward_mismatches(Read read) noexcept {
  constexpr ctattn::quantization q_h{2.0 / 127, 0};
  constexpr ctattn::quantization q_hidden{0.05, -10};
  constexpr ctattn::quantization q_act{0.03, -100};
  constexpr ctattn::quantization q_ff{0.05, 3};
  constexpr ctattn::encoder_layer_quantizations q{q_h, q_h, q_h,      q_h,   q_h,  q_h, q_h, q_h,
                                                  q_h, q_h, q_hidden, q_act, q_ff, q_h, q_h};
  ctattn::transformer_encoder_layer<float, 8, 2, 16, ctattn::gelu, true> layer{};
  const auto w1 = blocked_input(8);
  const auto w2 = blocked_input(9);
  for (std::size_t o = 0; o < 16; ++o) {
    for (std::size_t i = 0; i < 8; ++i) layer.ff.linear1.weight(o, i) = w1(o, i) / 4.0f;
    layer.ff.linear1.bias(0, o) = w1(o + 16, 0) / 8.0f;
  }
  for (std::size_t o = 0; o < 8; ++o) {
    for (std::size_t i = 0; i < 16; ++i) layer.ff.linear2.weight(o, i) = w2(o + 8 * (i / 8), i % 8) / 4.0f;
    layer.ff.linear2.bias(0, o) = w2(o + 40, 1) / 8.0f;
  }
  const auto layer_q = ctattn::quantize_encoder_layer<q>(read(layer));
  const auto h = ctattn::quantize<q_h>(read(blocked_input(10)));
  const auto whole = layer_q.template feed_forward<blocked_n>(h);
  return differing_elements(layer_q.template feed_forward<6>(h), whole) +
         differing_elements(layer_q.template feed_forward<64>(h), whole);
}

// Int8 multi-head attention: torch's nn.MultiheadAttention(16, 4) with biases, each projection quantized per channel
// by the compiler, every quantization calibrated on the float computation's ranges; the Q projection, the heads'
// concatenated outputs and the output against the reference, and the output within 3 steps of PyTorch's.
namespace mh = fx::multi_head;
inline constexpr auto mha_query = torch_linear<16, 16>(mh::in_proj_weight, mh::in_proj_bias, 0);
inline constexpr auto mha_key = torch_linear<16, 16>(mh::in_proj_weight, mh::in_proj_bias, 16);
inline constexpr auto mha_value = torch_linear<16, 16>(mh::in_proj_weight, mh::in_proj_bias, 32);
inline constexpr auto mha_output = torch_linear<16, 16>(mh::out_proj_weight, mh::out_proj_bias);
inline constexpr ctattn::quantization mha_x =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(mh::x)));
inline constexpr ctattn::quantization mha_context = ctattn::quantization_for_range(mh::context_lo, mh::context_hi);
inline constexpr ctattn::quantization mha_scores = ctattn::quantization_for_range(mh::scores_lo, mh::scores_hi);

template <typename Read>
constexpr std::size_t multi_head_mismatches(Read read) noexcept {
  using ctattn::quantization_for_range;
  const auto weights = ctattn::make_qmulti_head_attention_weights<4>(
      ctattn::quantize_linear<mha_x, quantization_for_range(mh::q_lo, mh::q_hi)>(read(mha_query)),
      ctattn::quantize_linear<mha_x, quantization_for_range(mh::k_lo, mh::k_hi)>(read(mha_key)),
      ctattn::quantize_linear<mha_x, quantization_for_range(mh::v_lo, mh::v_hi)>(read(mha_value)),
      ctattn::quantize_linear<mha_context, quantization_for_range(mh::out_lo, mh::out_hi)>(read(mha_output)));
  const auto x = ctattn::quantize<mha_x>(read(ctattn::from_array(mh::x)));
  const auto y = ctattn::multi_head_attention<mha_scores>(x, weights, ctattn::causal);
  return differing(ctattn::project(x, weights.query), mh::q_q) + int8_against(y, mh::output, mh::float_output, 3.0);
}

// Int8 cross-attention (5 rows of x over 7 rows of a memory, nn.MultiheadAttention(16, 4)): W_Q on x's
// quantization, W_K and W_V on the memory's; the output against the reference, bit for bit, and within 3 steps of
// PyTorch's.
namespace ca = fx::cross_attention;
inline constexpr auto cross_query = torch_linear<16, 16>(ca::in_proj_weight, ca::in_proj_bias, 0);
inline constexpr auto cross_key = torch_linear<16, 16>(ca::in_proj_weight, ca::in_proj_bias, 16);
inline constexpr auto cross_value = torch_linear<16, 16>(ca::in_proj_weight, ca::in_proj_bias, 32);
inline constexpr auto cross_output = torch_linear<16, 16>(ca::out_proj_weight, ca::out_proj_bias);
inline constexpr ctattn::quantization cross_x = ctattn::quantization_for_range(ca::x_lo, ca::x_hi);
inline constexpr ctattn::quantization cross_memory = ctattn::quantization_for_range(ca::memory_lo, ca::memory_hi);
inline constexpr ctattn::quantization cross_context = ctattn::quantization_for_range(ca::context_lo, ca::context_hi);
inline constexpr ctattn::quantization cross_scores = ctattn::quantization_for_range(ca::scores_lo, ca::scores_hi);

template <typename Read>
constexpr std::size_t cross_attention_mismatches(Read read) noexcept {
  using ctattn::quantization_for_range;
  const auto weights = ctattn::make_qmulti_head_attention_weights<4>(
      ctattn::quantize_linear<cross_x, quantization_for_range(ca::q_lo, ca::q_hi)>(read(cross_query)),
      ctattn::quantize_linear<cross_memory, quantization_for_range(ca::k_lo, ca::k_hi)>(read(cross_key)),
      ctattn::quantize_linear<cross_memory, quantization_for_range(ca::v_lo, ca::v_hi)>(read(cross_value)),
      ctattn::quantize_linear<cross_context, quantization_for_range(ca::out_lo, ca::out_hi)>(read(cross_output)));
  const auto x = ctattn::quantize<cross_x>(read(ctattn::from_array(ca::x)));
  const auto memory = ctattn::quantize<cross_memory>(read(ctattn::from_array(ca::memory)));
  const auto y = ctattn::multi_head_attention<cross_scores>(x, memory, weights);
  return int8_against(y, ca::output, ca::float_output, 3.0);
}

// math::isqrt against Python's math.isqrt, and its definition, r^2 <= v <= r^2 + 2r, for every v below 2048.
template <typename Read>
constexpr std::size_t isqrt_mismatches(Read read) noexcept {
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t i = 0; i < std::size(fx::isqrt::v); ++i) {
    bad += ctattn::math::isqrt(read(fx::isqrt::v[i])) == fx::isqrt::root[i] ? 0u : 1u;
  }
  for (std::uint64_t v = 0; v < 2048; ++v) {
    const std::uint64_t r = ctattn::math::isqrt(read(v));
    bad += r * r <= v && v - r * r <= 2 * r ? 0u : 1u;
  }
  return bad;
}

// The rounding shift of int8 LayerNorm's fixed point against the reference.
template <typename Read>
constexpr std::size_t rounding_shift_mismatches(Read read) noexcept {
  namespace rs = fx::rounding_shift;
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t i = 0; i < std::size(rs::x); ++i) {
    bad += ctattn::detail::kernels::rounding_shift(read(rs::x[i]), rs::s[i]) == rs::rounded[i] ? 0u : 1u;
  }
  return bad;
}

// Outputs farther than (1/2 + slack) output steps from the float reference, unless the reference lies beyond the
// output's range and the output is the end it saturates to.
template <typename Y, std::size_t R, std::size_t C>
constexpr std::size_t beyond_half_step(const Y& y, const double (&reference)[R][C], double slack) noexcept {
  static_assert(Y::rows == R && Y::cols == C);
  const double allowed = (0.5 + slack) * Y::quant.scale();
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      const double difference = y.real(r, c) - reference[r][c];
      const bool near = difference <= allowed && difference >= -allowed;
      const bool saturated = (y(r, c) == 127 && difference <= allowed) || (y(r, c) == -128 && difference >= -allowed);
      bad += near || saturated ? 0u : 1u;
    }
  }
  return bad;
}

// Int8 activations: for relu, gelu, gelu_tanh and silu, the table quantize_activation makes (the input's
// quantization calibrated on x, the output's on torch's float output) against the reference, the outputs of
// activate, and each output within half an output step of torch's float64 activation of the dequantized input
// (the table is the rounding of the exact value: nothing but double's last bits may be added).
namespace act = fx::activations;
inline constexpr ctattn::quantization activation_in =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(act::x)));

#define CTATTN_ACTIVATION_CASE(NAME)                                                                                  \
  struct NAME##_activation {                                                                                          \
    using layer = ctattn::NAME;                                                                                       \
    static constexpr ctattn::quantization out = ctattn::quantization_for_range(act::NAME::out_lo, act::NAME::out_hi); \
    static constexpr const auto& table() noexcept { return act::NAME::table; }                                        \
    static constexpr const auto& output() noexcept { return act::NAME::output; }                                      \
    static constexpr const auto& float_output() noexcept { return act::NAME::float_output; }                          \
  };
CTATTN_ACTIVATION_CASE(relu)
CTATTN_ACTIVATION_CASE(gelu)
CTATTN_ACTIVATION_CASE(gelu_tanh)
CTATTN_ACTIVATION_CASE(silu)
#undef CTATTN_ACTIVATION_CASE

template <typename Case, typename Read>
constexpr std::size_t activation_mismatches(Case, Read read) noexcept {
  const auto f = ctattn::quantize_activation<activation_in, Case::out>(read(typename Case::layer{}));
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t i = 0; i < 256; ++i) bad += std::int32_t{f.table[i]} == Case::table()[i] ? 0u : 1u;
  const auto y = ctattn::activate(ctattn::quantize<activation_in>(read(ctattn::from_array(act::x))), f);
  return bad + differing(y, Case::output()) + beyond_half_step(y, Case::float_output(), 1e-9);
}

template <typename Read>
constexpr std::size_t all_activation_mismatches(Read read) noexcept {
  return activation_mismatches(relu_activation{}, read) + activation_mismatches(gelu_activation{}, read) +
         activation_mismatches(gelu_tanh_activation{}, read) + activation_mismatches(silu_activation{}, read);
}

// Int8 LayerNorm: the constants quantize_layer_norm derives against the reference's.
template <typename Q, typename Case>
constexpr std::size_t layer_norm_constant_mismatches(const Q& q, Case) noexcept {
  std::uint32_t bad = 0;  // 32 bits: see differing()
  for (std::size_t j = 0; j < Q::width; ++j) {
    bad += q.multiplier[j] == Case::multiplier()[j] ? 0u : 1u;
    bad += q.shift[j] == Case::shift()[j] ? 0u : 1u;
    bad += q.bias[j] == Case::bias_q()[j] ? 0u : 1u;
  }
  bad += q.epsilon == Case::epsilon ? 0u : 1u;
  bad += q.epsilon_shift == Case::epsilon_shift ? 0u : 1u;
  return bad;
}

#define CTATTN_LAYER_NORM_CONSTANTS(NAME, NS)                                     \
  struct NAME {                                                                   \
    static constexpr const auto& multiplier() noexcept { return NS::multiplier; } \
    static constexpr const auto& shift() noexcept { return NS::shift; }           \
    static constexpr const auto& bias_q() noexcept { return NS::bias_q; }         \
    static constexpr std::int64_t epsilon = NS::epsilon;                          \
    static constexpr std::int32_t epsilon_shift = NS::epsilon_shift;              \
  };
CTATTN_LAYER_NORM_CONSTANTS(layer_norm_constants, fx::layer_norm)
CTATTN_LAYER_NORM_CONSTANTS(plain_layer_norm_constants, fx::plain_layer_norm)
CTATTN_LAYER_NORM_CONSTANTS(small_eps_constants, fx::extreme_layer_norm::small_eps)
CTATTN_LAYER_NORM_CONSTANTS(huge_eps_constants, fx::extreme_layer_norm::huge_eps)
CTATTN_LAYER_NORM_CONSTANTS(rms_norm_constants, fx::rms_norm)
#undef CTATTN_LAYER_NORM_CONSTANTS

// The error bound of int8 LayerNorm against float LayerNorm of its input's real values, beyond half an output step
// (ctattn/quantized/norm.hpp derives 2^-11 for weights up to 2^10 output steps).
inline constexpr double layer_norm_slack = 1.0 / 2048;

// nn.LayerNorm(32) with torch's seeded weight and bias, quantized by the compiler for the quantizations calibrated
// on x and on torch's float output.
namespace lnf = fx::layer_norm;
using float_layer_norm = ctattn::layer_norm<float, 32>;
inline constexpr float_layer_norm float_norm = [] {
  float_layer_norm l{};
  for (std::size_t j = 0; j < 32; ++j) {
    l.weight(0, j) = lnf::weight[j];
    l.bias(0, j) = lnf::bias[j];
  }
  return l;
}();
inline constexpr ctattn::quantization layer_norm_in =
    ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(lnf::x)));
inline constexpr ctattn::quantization layer_norm_out = ctattn::quantization_for_range(lnf::out_lo, lnf::out_hi);

// Each step is checked: the constants, every normalized value n_j and output accumulator A_j, the outputs, and the
// bound against torch.
template <typename Read>
constexpr std::size_t layer_norm_mismatches(Read read) noexcept {
  const auto norm = ctattn::quantize_layer_norm<layer_norm_in, layer_norm_out>(read(float_norm));
  const auto x = ctattn::quantize<layer_norm_in>(read(ctattn::from_array(lnf::x)));
  std::size_t bad = layer_norm_constant_mismatches(norm, layer_norm_constants{});
  for (std::size_t r = 0; r < decltype(x)::rows; ++r) {
    const auto row = ctattn::detail::kernels::int8_layer_norm_row_of(x.elements[r], norm.epsilon, norm.epsilon_shift);
    for (std::size_t j = 0; j < decltype(x)::cols; ++j) {
      const std::int32_t n = ctattn::detail::kernels::int8_layer_norm_normalized(x(r, j), row);
      bad += n == lnf::normalized[r][j] ? 0u : 1u;
      bad += ctattn::detail::kernels::int8_layer_norm_scaled(n, norm.multiplier[j], norm.shift[j], norm.bias[j]) ==
                     lnf::scaled[r][j]
                 ? 0u
                 : 1u;
    }
  }
  const auto y = ctattn::normalize(x, norm);
  return bad + differing(y, lnf::output) + beyond_half_step(y, lnf::float_output, layer_norm_slack);
}

// No affine parameters, eps 1e-3, a row of equal values.
template <typename Read>
constexpr std::size_t plain_layer_norm_mismatches(Read read) noexcept {
  constexpr ctattn::quantization q_in{0.05, 10}, q_out{0.02, -5};
  ctattn::layer_norm<float, 7, false> plain{};
  plain.eps = read(1e-3f);  // the layer's only member: a layer without parameters is not passed by value (GCC's
                            // psabi note on [[no_unique_address]] members on AArch64 and ARM)
  const auto norm = ctattn::quantize_layer_norm<q_in, q_out>(plain);
  const auto y = ctattn::normalize(ctattn::quantize<q_in>(read(ctattn::from_array(fx::plain_layer_norm::x))), norm);
  return layer_norm_constant_mismatches(norm, plain_layer_norm_constants{}) +
         differing(y, fx::plain_layer_norm::output) +
         beyond_half_step(y, fx::plain_layer_norm::float_output, layer_norm_slack);
}

// Parameters past the held limits, with eps 1e-5 and with eps 1e20 (E held at 2^61): constants and outputs.
template <typename Constants, std::size_t R, typename Read>
constexpr std::size_t extreme_layer_norm_mismatches(float eps, Constants constants, const std::int32_t (&want)[R][6],
                                                    Read read) noexcept {
  namespace ext = fx::extreme_layer_norm;
  constexpr ctattn::quantization q_in{0.05, 0}, q_out{0.01, 3};
  ctattn::layer_norm<float, 6> extreme{};
  for (std::size_t j = 0; j < 6; ++j) {
    extreme.weight(0, j) = ext::weight[j];
    extreme.bias(0, j) = ext::bias[j];
  }
  extreme.eps = eps;
  const auto norm = ctattn::quantize_layer_norm<q_in, q_out>(read(extreme));
  const auto y = ctattn::normalize(ctattn::quantize<q_in>(read(ctattn::from_array(ext::x))), norm);
  return layer_norm_constant_mismatches(norm, constants) + differing(y, want);
}

template <typename Read>
constexpr std::size_t all_extreme_layer_norm_mismatches(Read read) noexcept {
  namespace ext = fx::extreme_layer_norm;
  return extreme_layer_norm_mismatches(1e-5f, small_eps_constants{}, ext::small_eps::output, read) +
         extreme_layer_norm_mismatches(1e20f, huge_eps_constants{}, ext::huge_eps::output, read);
}

// The widest rows the rule allows, 16384, at the bounds of the fixed point (the outlier row's first value is
// sqrt(C - 1) standard deviations from the mean), with no affine parameters; row 0 is the outlier, 1 alternates 127
// and -128, 2 is the ramp j mod 256 - 128. Constants, outputs, and the bound against torch's float64 LayerNorm.
namespace wide = fx::wide_layer_norm;
inline constexpr ctattn::quantization wide_in{0.5, 0}, wide_out{0.02, 0};
using wide_float_norm = ctattn::layer_norm<float, 16384, false>;
using wide_row = ctattn::qmatrix<1, 16384, wide_in>;

// The layer quantized with its eps read through `read`.
template <typename Read>
constexpr auto wide_norm_of(Read read) noexcept {
  wide_float_norm l{};
  l.eps = read(l.eps);
  return ctattn::quantize_layer_norm<wide_in, wide_out>(l);
}

constexpr wide_row wide_input(int row) noexcept {
  wide_row x{};
  for (std::size_t j = 0; j < wide_row::cols; ++j) {
    const int ramp = static_cast<int>(j % 256) - 128;
    x(0, j) = static_cast<std::int8_t>(row == 0 ? (j == 0 ? 127 : -128) : row == 1 ? (j % 2 == 0 ? 127 : -128) : ramp);
  }
  return x;
}

// The expected output and float reference of entry j of a row.
constexpr std::int32_t wide_expected(int row, std::size_t j) noexcept {
  return row == 0 ? wide::outlier[j == 0 ? 0 : 1] : row == 1 ? wide::alternating[j % 2] : wide::ramp[j % 256];
}
constexpr double wide_reference(int row, std::size_t j) noexcept {
  return row == 0   ? wide::float_outlier[j == 0 ? 0 : 1]
         : row == 1 ? wide::float_alternating[j % 2]
                    : wide::float_ramp[j % 256];
}

template <typename Norm>
constexpr std::size_t wide_constant_mismatches(const Norm& norm) noexcept {
  std::size_t bad = norm.epsilon == wide::epsilon && norm.epsilon_shift == wide::epsilon_shift ? 0u : 1u;
  for (std::size_t j = 0; j < Norm::width; ++j) {
    bad += norm.multiplier[j] == wide::multiplier && norm.shift[j] == wide::shift && norm.bias[j] == wide::bias_q ? 0u
                                                                                                                  : 1u;
  }
  return bad;
}

template <typename Norm, typename Read>
constexpr std::size_t wide_row_mismatches(const Norm& norm, int row, Read read) noexcept {
  const auto y = ctattn::normalize(read(wide_input(row)), norm);
  std::uint32_t bad = 0;  // 32 bits: see differing()
  double reference[1][16384]{};
  for (std::size_t j = 0; j < wide_row::cols; ++j) {
    bad += std::int32_t{y(0, j)} == wide_expected(row, j) ? 0u : 1u;
    reference[0][j] = wide_reference(row, j);
  }
  return bad + beyond_half_step(y, reference, layer_norm_slack);
}

// RMSNorm(32) with a seeded weight and eps float's machine epsilon (nn.RMSNorm's default), quantized by the
// compiler for the quantizations calibrated on x and on the float output: the constants, the outputs (a row of
// zeros among them), and the bound against the float64 RMSNorm of the dequantized input.
template <typename Read>
constexpr std::size_t rms_norm_mismatches(Read read) noexcept {
  namespace rn = fx::rms_norm;
  constexpr ctattn::quantization q_in =
      ctattn::quantization_for_range(ctattn::observed_range(ctattn::from_array(rn::x)));
  constexpr ctattn::quantization q_out = ctattn::quantization_for_range(rn::out_lo, rn::out_hi);
  ctattn::rms_norm<float, 32> float_rms{};
  for (std::size_t j = 0; j < 32; ++j) float_rms.weight(0, j) = rn::weight[j];
  const auto norm = ctattn::quantize_rms_norm<q_in, q_out>(read(float_rms));
  const auto y = ctattn::normalize(ctattn::quantize<q_in>(read(ctattn::from_array(rn::x))), norm);
  return layer_norm_constant_mismatches(norm, rms_norm_constants{}) + differing(y, rn::output) +
         beyond_half_step(y, rn::float_output, layer_norm_slack);
}

// The widest RMSNorm rows the rule allows, 16383, no weight, eps 1e-5, q_in {0.5, -128}, q_out {1.1, 0}: row 0 one
// value at 127 and the others at the zero point (its first output sqrt(C) (1 - tiny) in real terms, the largest
// normalized value), row 1 alternating 127 and -128. Constants, outputs and the bound against float64 RMSNorm.
template <typename Read>
constexpr std::size_t wide_rms_norm_mismatches(Read read) noexcept {
  namespace wr = fx::wide_rms_norm;
  constexpr ctattn::quantization q_in{0.5, -128}, q_out{1.1, 0};
  ctattn::rms_norm<float, 16383, false> float_rms{};
  float_rms.eps = read(1e-5f);
  const auto norm = ctattn::quantize_rms_norm<q_in, q_out>(float_rms);
  std::size_t bad = norm.epsilon == wr::epsilon && norm.epsilon_shift == wr::epsilon_shift ? 0u : 1u;
  for (int row = 0; row < 2; ++row) {
    ctattn::qmatrix<1, 16383, q_in> x{};
    double reference[1][16383]{};
    for (std::size_t j = 0; j < 16383; ++j) {
      x(0, j) = static_cast<std::int8_t>(row == 0 ? (j == 0 ? 127 : -128) : (j % 2 == 0 ? 127 : -128));
      reference[0][j] = row == 0 ? wr::float_outlier[j == 0 ? 0 : 1] : wr::float_alternating[j % 2];
    }
    const auto y = ctattn::normalize(read(x), norm);
    for (std::size_t j = 0; j < 16383; ++j) {
      const std::int32_t want = row == 0 ? wr::outlier[j == 0 ? 0 : 1] : wr::alternating[j % 2];
      bad += std::int32_t{y(0, j)} == want ? 0u : 1u;
    }
    bad += beyond_half_step(y, reference, layer_norm_slack);
  }
  return bad;
}

inline constexpr auto as_is = [](const auto& value) { return value; };

// The widest layer quantized once, in constant evaluation (a template, so that only a unit that asks evaluates it).
template <int = 0>
inline constexpr auto wide_norm_constant = wide_norm_of(as_is);

// Every case of this header, once (tests/support/case_list.hpp): tests/static, tests/runtime and tests/backend each
// run the cases marked for them (a backend's the cases its int8 kernels reach).
// Rationale: constant evaluation leaves the largest attention, the causal blocks and the widest RMSNorm to the
// compiled runners (compile time).
inline constexpr unsigned all_three = in_constant_evaluation | at_run_time | with_each_backend;
inline constexpr unsigned exact_only = in_constant_evaluation | at_run_time;
inline constexpr unsigned compiled_only = at_run_time | with_each_backend;
inline constexpr auto every_case = std::tuple{
    test_case{"quantize", exact_only, [](auto read) { return quantize_mismatches(read); }},
    test_case{"products", all_three, [](auto read) { return all_product_mismatches(read); }},
    test_case{"calibration", exact_only, [](auto read) { return calibration_mismatches(read); }},
    test_case{"calibrated quantize", exact_only, [](auto read) { return calibrated_quantize_mismatches(read); }},
    test_case{"linear", all_three, [](auto read) { return linear_mismatches(read); }},
    test_case{"linear, int4 weights", all_three, [](auto read) { return int4_linear_mismatches(read); }},
    test_case{"linear, int4 weights per tensor", all_three, [](auto read) { return int4_per_tensor_mismatches(read); }},
    test_case{"patch embeddings", all_three, [](auto read) { return patch_embedding_mismatches(read); }},
    test_case{"class token and mean pooling", all_three,
              [](auto read) { return class_token_and_mean_mismatches(read); }},
    test_case{"TFLite's float32 quantize", exact_only, [](auto read) { return tflite_float32_mismatches(read); }},
    test_case{"ADD", exact_only, [](auto read) { return add_mismatches(read); }},
    test_case{"MUL (hadamard)", all_three, [](auto read) { return hadamard_mismatches(read); }},
    test_case{"softmax", all_three, [](auto read) { return softmax_mismatches(read); }},
    test_case{"TFLite's softmax", all_three, [](auto read) { return tflite_softmax_mismatches(read); }},
    test_case{"rows where the softmax methods differ", all_three,
              [](auto read) { return softmax_method_mismatches(read); }},
    test_case{"attention", all_three, [](auto read) { return attention_mismatches(read); }},
    test_case{"attention, large", compiled_only, [](auto read) { return large_attention_mismatches(read); }},
    test_case{"attention, large, TFLite's softmax", compiled_only,
              [](auto read) { return tflite_attention_mismatches(read); }},
    test_case{"masked attention", all_three, [](auto read) { return masked_attention_mismatches(read); }},
    test_case{"queries in blocks, unmasked", in_constant_evaluation,
              [](auto read) { return blocked_attention_mismatches(read, false); }},
    test_case{"queries in blocks, unmasked and causal", compiled_only,
              [](auto read) { return blocked_attention_mismatches(read); }},
    test_case{"multi-head attention in blocks", compiled_only,
              [](auto read) { return blocked_multi_head_mismatches(read); }},
    test_case{"feed-forward block in row blocks", all_three,
              [](auto read) { return blocked_feed_forward_mismatches(read); }},
    test_case{"multi-head attention", all_three, [](auto read) { return multi_head_mismatches(read); }},
    test_case{"cross-attention", all_three, [](auto read) { return cross_attention_mismatches(read); }},
    test_case{"integer square root", exact_only, [](auto read) { return isqrt_mismatches(read); }},
    test_case{"rounding shifts", exact_only, [](auto read) { return rounding_shift_mismatches(read); }},
    test_case{"activations", all_three, [](auto read) { return all_activation_mismatches(read); }},
    test_case{"LayerNorm", all_three, [](auto read) { return layer_norm_mismatches(read); }},
    test_case{"LayerNorm without affine", exact_only, [](auto read) { return plain_layer_norm_mismatches(read); }},
    test_case{"LayerNorm at the extremes", exact_only,
              [](auto read) { return all_extreme_layer_norm_mismatches(read); }},
    test_case{"RMSNorm", all_three, [](auto read) { return rms_norm_mismatches(read); }},
    test_case{"RMSNorm, widest", at_run_time, [](auto read) { return wide_rms_norm_mismatches(read); }},
    // The widest rows int8 LayerNorm allows: in constant evaluation the layer quantized once and each row a
    // constant expression of its own (a signed overflow would not be one); at run time quantized at run time too.
    test_case{"LayerNorm, widest: its constants", in_constant_evaluation,
              [](auto) { return wide_constant_mismatches(wide_norm_constant<>); }},
    test_case{"LayerNorm, widest: an outlier row", in_constant_evaluation,
              [](auto read) { return wide_row_mismatches(wide_norm_constant<>, 0, read); }},
    test_case{"LayerNorm, widest: an alternating row", in_constant_evaluation,
              [](auto read) { return wide_row_mismatches(wide_norm_constant<>, 1, read); }},
    test_case{"LayerNorm, widest: a ramp", in_constant_evaluation,
              [](auto read) { return wide_row_mismatches(wide_norm_constant<>, 2, read); }},
    test_case{"LayerNorm, widest, quantized at run time: its constants and three rows", at_run_time,
              [](auto read) {
                const auto norm = wide_norm_of(read);
                return wide_constant_mismatches(norm) + wide_row_mismatches(norm, 0, read) +
                       wide_row_mismatches(norm, 1, read) + wide_row_mismatches(norm, 2, read);
              }},
};

}  // namespace ctattn_test::quantized_cases
