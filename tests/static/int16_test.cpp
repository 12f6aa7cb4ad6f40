// The int16 tier (TFLite's 16x8 mode) at compile time: every case of tests/support/int16_cases.hpp against TensorFlow
// Lite Micro's arithmetic, and the types' own facts.
#include "support/int16_cases.hpp"

#include <type_traits>

namespace {
static_assert(ctattn_test::every_constant_case_passes<ctattn_test::int16_cases::every_case>());
static_assert(ctattn_test::every_constant_case_passes<ctattn_test::int16_cases::layer_cases>());

// An int16 matrix is its own type: int8 operations do not take it, nor int16 ones an int8 matrix.
using q16 = ctattn::q16matrix<2, 3, ctattn::quantization{0.001}>;
static_assert(ctattn::Quantized16Matrix<q16> && !ctattn::QuantizedMatrix<q16>);
static_assert(!ctattn::Quantized16Matrix<ctattn::qmatrix<2, 3, ctattn::quantization{0.001}>>);
static_assert(std::is_same_v<q16::value_type, std::int16_t> && sizeof(q16) == 2 * 3 * 2);

// The examples of the documentation.
constexpr ctattn::q16matrix<1, 2, ctattn::quantization{0.001}> q{{{1000, -32768}}};
static_assert(q.real(0, 0) == 1.0 && q.real(0, 1) == -32.768);
constexpr auto x =
    ctattn::quantize<ctattn::quantization{0.001}, std::int16_t>(ctattn::matrix<float, 1, 3>{{{1.0f, -0.003f, 100}}});
static_assert(x(0, 0) == 1000 && x(0, 1) == -3 && x(0, 2) == 32767);
static_assert(ctattn::dequantize(x)(0, 0) == 1.0f);
// The softmax of a row of equal values: 32768 / 4 in each place.
constexpr auto w = ctattn::softmax_rows(ctattn::q16matrix<1, 4, ctattn::quantization{0.001}>{{{5, 5, 5, 5}}});
static_assert(w(0, 0) == 8192 && w(0, 3) == 8192);
// The requantizer the kernels make once per channel gives TFLite's int64 requantization
// (math::multiply_by_reduced_multiplier, checked against exact-integer references) narrowed and clamped:
// accumulators to +-2^47 and multipliers from 2^-30 to 2^7, with the reduction's edge (0x7FFF0000 and above).
constexpr bool requantizer_matches() {
  constexpr double reals[]{1e-9, 0.0003, 0.25, 0.7, 0.99999, 3.5, 100.0, 127.9};
  constexpr std::int64_t sums[]{
      0, 1, -1, 32767, -32768, 123456789, -987654321, std::int64_t{1} << 40, -(std::int64_t{1} << 47)};
  for (const double real : reals) {
    const auto m = ctattn::math::quantize_multiplier(real);
    for (const ctattn::math::quantized_multiplier edge : {m, ctattn::math::quantized_multiplier{0x7FFFFFF0, m.shift}}) {
      for (const std::int64_t sum : sums) {
        const std::int64_t exact = ctattn::math::multiply_by_reduced_multiplier(sum, edge);
        const auto wrapped = static_cast<std::int32_t>(exact);
        const std::int32_t expected = wrapped < -32768 ? -32768 : (wrapped > 32767 ? 32767 : wrapped);
        if (ctattn::detail::kernels::int64_requantizer{edge}(sum) != expected) {
          return false;
        }
      }
    }
  }
  return true;
}
static_assert(requantizer_matches());
static_assert(ctattn::detail::kernels::int64_requantizer{ctattn::math::quantize_multiplier(0.25)}(1000) == 250);
static_assert(ctattn::math::reduced_multiplier(ctattn::math::quantize_multiplier(0.25)) == 16384);
static_assert(ctattn::math::reduced_multiplier({0x7FFFFFF0, 0}) == 0x7FFF);
// exp(0) read from the table: the last interval's interpolation gives 32762, not 32767 (as TFLite's).
static_assert(ctattn::detail::kernels::int16_table_lookup(32767, ctattn::detail::int16_softmax_tables::exp) == 32762);

// 16x8 attention with its softmax method named: softmax_method::tflite computes as without it (rounded is the rule
// int16_softmax_is_tflites, tests/compile_fail/q16attention_rounded_softmax.cpp).
constexpr ctattn::q16matrix<3, 4, ctattn::quantization{0.0005}> x16{{{1, 2, 3, 4}, {-5, 6, 7, 8}, {9, -10, 11, 12}}};
constexpr ctattn::quantization q_scores16{0.0003}, q_out16{0.0004};
static_assert(ctattn::scaled_dot_product_attention<q_scores16, q_out16, ctattn::softmax_method::tflite>(
                  x16, x16, x16, ctattn::causal) ==
              ctattn::scaled_dot_product_attention<q_scores16, q_out16>(x16, x16, x16, ctattn::causal));
}  // namespace
