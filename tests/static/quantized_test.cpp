// The int8 tier at compile time: quantization and products against the exact reference
// (tests/support/quantized_cases.hpp), and the types' own facts.
#include "support/int8_kernel_cases.hpp"
#include "support/quantized_cases.hpp"

#include <type_traits>

namespace {
namespace cases = ctattn_test::quantized_cases;

// Every case of the int8 case headers marked for constant evaluation (tests/support/case_list.hpp), each a
// constant expression of its own: the int8 kernels' constant-evaluated forms against their loops, and quantization,
// products, attention, activations and norms against the exact reference. tests/runtime and tests/backend run the
// same lists.
static_assert(ctattn_test::every_constant_case_passes<ctattn_test::int8_kernel_cases::every_case>());
static_assert(ctattn_test::every_constant_case_passes<cases::every_case>());
// What an int8 LayerNorm holds (docs/quantized.md): 12 bytes per channel and 16 more.
static_assert(sizeof(ctattn::qlayer_norm<32, cases::layer_norm_in, cases::layer_norm_out>) == 32 * 12 + 16);
static_assert(ctattn::quantization_for_range(-1.0, 3.0) == ctattn::quantization{4.0 / 255.0, -64});
static_assert(ctattn::quantization_for_range(0.5, 3.0).zero_point == -128);  // widened to contain 0
static_assert(ctattn::quantization_for_range(-3.0, -1.0).zero_point == 127);
static_assert(ctattn::symmetric_quantization(2.54) == ctattn::quantization{0.02, 0});

// The quantization is part of the type: two scales, two types; the same scale spelled twice, one type.
using q05 = ctattn::qmatrix<2, 3, ctattn::quantization{0.5, 1}>;
static_assert(!std::is_same_v<q05, ctattn::qmatrix<2, 3, ctattn::quantization{0.25, 1}>>);
static_assert(!std::is_same_v<q05, ctattn::qmatrix<2, 3, ctattn::quantization{0.5, 0}>>);
static_assert(std::is_same_v<q05, ctattn::qmatrix<2u, std::size_t{3}, ctattn::quantization{1.0 / 2, 1}>>);
static_assert(ctattn::QuantizedMatrix<q05> && !ctattn::QuantizedMatrix<ctattn::matrix<float, 2, 3>>);

// The examples of the documentation.
constexpr ctattn::qmatrix<2, 2, ctattn::quantization{0.5, 1}> q{{{1, 3}, {-1, 5}}};
static_assert(q.real(0, 1) == 1.0 && q.real(1, 0) == -1.0);
constexpr auto x = ctattn::quantize<ctattn::quantization{0.5, 1}>(ctattn::matrix<float, 1, 3>{{{1.0f, -0.25f, 100}}});
static_assert(x(0, 0) == 3 && x(0, 1) == 0 && x(0, 2) == 127);
// real {{0, 1}, {-1, 2}} squared is {{-1, 2}, {-2, 3}}: in steps of 0.25, {{-4, 8}, {-8, 12}}.
constexpr auto square = ctattn::multiply<ctattn::quantization{0.25, 0}>(q, q);
static_assert(square(0, 0) == -4 && square(0, 1) == 8 && square(1, 0) == -8 && square(1, 1) == 12);
static_assert(ctattn::dequantize(square)(1, 1) == 3.0f);
static_assert(ctattn::math::isqrt(99) == 9 && ctattn::math::isqrt(100) == 10);
static_assert(ctattn::math::isqrt(0xFFFF'FFFF'FFFF'FFFF) == 0xFFFF'FFFF);
constexpr auto relu_q =
    ctattn::quantize_activation<ctattn::quantization{0.1, 0}, ctattn::quantization{0.1, -128}>(ctattn::relu{});
static_assert(relu_q(-5) == -128 && relu_q(7) == -121);  // real -0.5 -> 0, real 0.7 -> 0.7

// The transpose view reads b's rows: q (q^T)^T is q q.
static_assert(ctattn::multiply<ctattn::quantization{0.25, 0}>(
                  q, ctattn::transpose(ctattn::qmatrix<2, 2, ctattn::quantization{0.5, 1}>{{{1, -1}, {3, 5}}})) ==
              square);

// Int8 footprints: a layer's object is its flash; one inference's activations and scratch its RAM.
using x_q = ctattn::qmatrix<6, 32, ctattn::quantization{0.1, 3}>;
using linear_q = ctattn::qlinear<32, 64, ctattn::quantization{0.1, 3}, ctattn::quantization{0.2, -5}>;
constexpr ctattn::footprint linear_fp = linear_q::footprint_of<x_q>();
static_assert(linear_fp.weight_bytes == sizeof(linear_q) && sizeof(linear_q) == 32 * 64 + 64 * 4 + 64 * 8);
static_assert(linear_fp.input_bytes == 6 * 32 && linear_fp.output_bytes == 6 * 64);
// The kernel's scratch on any backend: the larger of N int32 sums (x86, NEON) and 6 rows of K int16 (the Cortex-M
// DSP's widened block).
static_assert(linear_fp.stack_bytes == 6 * 32 * 2);
static_assert(ctattn::qlinear<8, 64, ctattn::quantization{0.1, 3}, ctattn::quantization{0.2, -5}>::footprint_of<
                  ctattn::qmatrix<6, 8, ctattn::quantization{0.1, 3}>>()
                  .stack_bytes == 64 * 4);
using norm_q = ctattn::qlayer_norm<32, ctattn::quantization{0.1, 3}, ctattn::quantization{0.05, 0}>;
static_assert(norm_q::footprint_of<x_q>().weight_bytes == sizeof(norm_q));
// A layer's sizes written as int literals give the same result types as a qmatrix's (extents normalized), so the
// results assign to the types a user spells.
static_assert(std::is_same_v<decltype(ctattn::project(x_q{}, linear_q{})),
                             ctattn::qmatrix<6, 64, ctattn::quantization{0.2, -5}>>);
static_assert(std::is_same_v<decltype(ctattn::normalize(x_q{}, norm_q{})),
                             ctattn::qmatrix<6, 32, ctattn::quantization{0.05, 0}>>);
using table_q = decltype(relu_q);
static_assert(table_q::footprint_of<x_q>().weight_bytes == 256 &&
              table_q::footprint_of<x_q>().ram_bytes() == 2 * 6 * 32);
}  // namespace

// docs/quantized.md's "TFLite, bit for bit" example: a float32 scale as a .tflite file holds it, and TFLite's
// float32 division (-6.5 exactly), where the double quotient (-6.4999...) would round to -90.
static_assert([] {
  constexpr ctattn::quantization from_tflite{1.39032352f, -84};
  constexpr auto quantized = ctattn::quantize<from_tflite>(ctattn::matrix<float, 1, 1>{{{-9.0371027f}}});
  return quantized(0, 0) == -91;
}());
// The outside check's BATCH_MATMUL scales: TFLite's multiplier from the float32 product of the input scales.
static_assert(ctattn::math::quantize_multiplier(ctattn::detail::scale_product(0x1.6c6e46p-4, 0x1.9d988ep-5) /
                                                0x1.219caap+1) == ctattn::math::quantized_multiplier{1091452106, -8});

// The packed layout of int8 layers (kernels/detail/int8_packed.hpp), made in constant evaluation as a constexpr
// layer makes it, for the AVX-512 form (16 channels, 0-7 in the even lanes and 8-15 in the odd ones, inputs + 128)
// and the sdot form (4 channels in order, inputs as they are): weight [c][t] lands at block c / Lanes, group t / 4,
// the lane of c % Lanes, byte t % 4; the padding holds weight 0.
namespace packed_layout {
using ctattn::detail::int8_packed::lane_format;
using ctattn::detail::int8_packed::packed_weights;
using ctattn::detail::int8_packed::paired_format;
constexpr std::int8_t w[5][6] = {
    {1, 2, 3, 4, 5, 6}, {-1, -2, -3, -4, -5, -6}, {7, 0, 0, 0, 0, -7}, {127, -127, 0, 1, -1, 2}, {9, 8, 7, 6, 5, 4}};
constexpr std::int32_t bias[5] = {10, -20, 30, -40, 50};
constexpr ctattn::math::quantized_multiplier m[5] = {
    {1 << 30, -1}, {1 << 30, 2}, {1500000000, 0}, {0, 0}, {2000000000, -31}};
constexpr packed_weights<5, 6, paired_format> x86{w, bias, m, -3};
constexpr packed_weights<5, 6, lane_format<4, 0>> arm{w, bias, m, -3};
// x86: one block of 16 channels, 2 groups of 4 inputs: 128 bytes; channel c < 8 in lane 2 c.
static_assert(sizeof(x86.weight) == 2 * 64);
static_assert(x86.weight[0 * 64 + 6 * 4 + 1] == -127);  // w[3][1], group 0, lane 6
static_assert(x86.weight[1 * 64 + 8 * 4 + 1] == 4);     // w[4][5], group 1, lane 8
static_assert(x86.weight[1 * 64 + 0 * 4 + 2] == 0);     // t = 6: padding
static_assert(x86.weight[0 * 64 + 3 * 4 + 0] == 0);     // lane 3, channel 9: padding
// sdot: 2 blocks of 4 channels; channel 4 is lane 0 of block 1.
static_assert(arm.weight[1 * 2 * 16 + 1 * 16 + 0 * 4 + 1] == 4);  // w[4][5]
static_assert(arm.weight[0 * 2 * 16 + 0 * 16 + 2 * 4 + 0] == 7);  // w[2][0]
// The starts at the channels' lanes, less 128 times the channel's weights where the inputs are offset by 128 (the
// weights of channel 1 add up to -21, of channel 4 to 39); the sdot form's requantization per lane: multipliers,
// shifts split into left and right, the rounding bit.
static_assert(x86.start[2] == -20 + 128 * 21 && x86.start[8] == 50 - 128 * 39 && x86.start[1] == 0);
static_assert(arm.start[1] == -20 && arm.start[4] == 50);
static_assert(arm.requant.left[1] == 2 && arm.requant.right[1] == 0 && arm.requant.round_bit[1] == 0);
static_assert(arm.requant.left[4] == 0 && arm.requant.right[4] == 31 && arm.requant.right_less_one[4] == 30 &&
              arm.requant.round_bit[4] == 1);
static_assert(arm.requant.multiplier[2] == 1500000000 && arm.requant.right[2] == 0);
// AVX2's form (groups of 2 inputs, 8 channels): w[c][t] at group t / 2, byte 2 lane + t % 2; 3 groups of 16 bytes.
// i8mm's (groups of 8, 4 channels): a channel's 8 weights side by side, channels 0-1 then 2-3 (smmla's two 8 x 2
// operands), one group of 32 bytes per block; the padding of t = 6, 7 holds 0.
constexpr packed_weights<5, 6, lane_format<8, 0, 2>> avx2{w, bias, m, -3};
constexpr packed_weights<5, 6, lane_format<4, 0, 8>> i8mm{w, bias, m, -3};
static_assert(sizeof(avx2.weight) == 3 * 16 && sizeof(i8mm.weight) == 2 * 32);
static_assert(avx2.weight[0 * 16 + 3 * 2 + 1] == -127);  // w[3][1], group 0, lane 3
static_assert(avx2.weight[2 * 16 + 4 * 2 + 1] == 4);     // w[4][5], group 2, lane 4
static_assert(avx2.weight[1 * 16 + 0 * 2 + 0] == 3);     // w[0][2], group 1, lane 0
static_assert(avx2.weight[0 * 16 + 5 * 2 + 0] == 0);     // lane 5: no channel
static_assert(i8mm.weight[0 * 32 + 3 * 8 + 1] == -127);  // w[3][1]: block 0, lane 3
static_assert(i8mm.weight[1 * 32 + 0 * 8 + 5] == 4);     // w[4][5]: block 1, lane 0
static_assert(i8mm.weight[0 * 32 + 1 * 8 + 5] == -6 && i8mm.weight[0 * 32 + 1 * 8 + 6] == 0);  // w[1][5]; padding
static_assert(avx2.start[1] == -20 && i8mm.start[4] == 50 && i8mm.requant.right[4] == 31);
// Staged rows: bytes from one to the next (K rounded up to a group, 2 bytes an input where widened), and the bound
// int8_product_stack_bytes takes on every backend: 8 rows of K rounded up to 8, or 4 rows of widened inputs.
static_assert(ctattn::detail::int8_packed::staged_stride<lane_format<8, 0, 2>, 5> == 12);
static_assert(ctattn::detail::int8_packed::staged_stride<lane_format<4, 0, 8>, 5> == 8);
static_assert(ctattn::detail::int8_packed::staged_stride<paired_format, 5> == 8);
static_assert(ctattn::detail::int8_packed::most_staged_bytes<16, 5> == 8 * 8);
static_assert(ctattn::detail::int8_packed::most_staged_bytes<3, 64> == 3 * 2 * 64);
// A run-time operand's panel (int8_packed::runtime_product) within the bound int8_product_stack_bytes adds from 8
// rows on: 4 blocks of AVX-512's 16 channels, one of AVX2's 8 with K = 5 (groups of 2), AArch64's widest panels.
using ctattn::detail::int8_packed::most_runtime_panel_bytes;
using ctattn::detail::int8_packed::runtime_panel;
static_assert(sizeof(runtime_panel<paired_format, 64, 4>) + 64 <= most_runtime_panel_bytes<64, 64>);
static_assert(sizeof(runtime_panel<paired_format, 1024, 4>) + 64 <= most_runtime_panel_bytes<1024, 100>);
static_assert(sizeof(runtime_panel<lane_format<8, 0, 2>, 5, 1>) + 64 <= most_runtime_panel_bytes<5, 3>);
static_assert(sizeof(runtime_panel<lane_format<4, 0, 8>, 67, 8>) + 64 <= most_runtime_panel_bytes<67, 32>);
static_assert(sizeof(runtime_panel<lane_format<4, 0, 4>, 130, 8>) + 64 <= most_runtime_panel_bytes<130, 200>);
static_assert(ctattn::detail::kernels::int8_product_stack_bytes<8, 64, 64> ==
              ctattn::detail::int8_packed::most_staged_bytes<8, 64> + most_runtime_panel_bytes<64, 64>);
static_assert(ctattn::detail::kernels::int8_product_stack_bytes<7, 64, 64> < most_runtime_panel_bytes<64, 64>);
// One multiplier for every channel (a run-time product's): set_all gives the constants set gives each channel.
template <typename Format>
constexpr bool set_all_matches(ctattn::math::quantized_multiplier one, std::int32_t zero) {
  typename Format::template requantization<32> each{}, all{};
  for (std::size_t c = 0; c < 32; ++c) {
    each.set(c, c / Format::lanes * Format::lanes + Format::lane_of(c % Format::lanes), one, zero);
  }
  all.set_all(one, zero);
  return each == all;
}
static_assert(set_all_matches<paired_format>({1500000000, -7}, -3) && set_all_matches<paired_format>({1 << 30, 2}, 5));
static_assert(set_all_matches<paired_format>({2000000000, -30}, 0));  // not exact: folds_every_zero 0 in both
static_assert(set_all_matches<lane_format<8, 128>>({1500000000, -7}, -3) &&
              set_all_matches<lane_format<4, 0, 8>>({1 << 30, 2}, 5));
// The AVX-512 form's: the left shift at the lane, the 64-bit constants in channel order, so that
// ((x << left) m + addend - (negative where the product is below -2^30)) >> shift is the requantized value, the
// zero point -3 in the addend (-3 2^shift) where the right shift is at most 23. Channel 4's is 31: that layer is
// not exact (the plain kernel computes it), one without such a channel is.
static_assert(x86.requant.left[2] == 2 && x86.requant.left[8] == 0);
static_assert(!x86.exact() && arm.exact());
constexpr ctattn::math::quantized_multiplier m_foldable[5] = {
    {1 << 30, -1}, {1 << 30, 2}, {1500000000, 0}, {0, 0}, {2000000000, -23}};
constexpr packed_weights<5, 6, paired_format> x86_exact{w, bias, m_foldable, -3};
static_assert(x86_exact.exact() && x86_exact.requant.get(x86_exact.requant.addend, 4) ==
                                       (std::int64_t{1} << 30) + (std::int64_t{1} << 53) - 3 * (std::int64_t{1} << 54));
static_assert(x86.requant.get(x86.requant.multiplier, 2) == 1500000000);
static_assert(x86.requant.get(x86.requant.shift, 0) == 32 && x86.requant.get(x86.requant.shift, 1) == 31 &&
              x86.requant.get(x86.requant.shift, 4) == 62);
static_assert(x86.requant.get(x86.requant.addend, 1) == (std::int64_t{1} << 30) - 3 * (std::int64_t{1} << 31) &&
              x86.requant.get(x86.requant.negative, 1) == 0);
static_assert(x86.requant.get(x86.requant.addend, 0) ==
              (std::int64_t{1} << 30) + (std::int64_t{1} << 31) - 3 * (std::int64_t{1} << 32));
static_assert(x86.requant.get(x86.requant.addend, 4) == (std::int64_t{1} << 30) + (std::int64_t{1} << 61) &&
              x86.requant.get(x86.requant.negative, 4) == (std::int64_t{1} << 31));
// The one step AVX-512 computes from those constants, y = saturate(((x << left) m + addend - (negative where the
// product is below -2^30)) >> shift), gives output_requantizer's bits (zero point -3) for every channel of the exact
// layer: the extremes of int32, every sum in [-600, 600] (the ties of each right shift among them) and large ones.
constexpr bool one_step_matches(std::int32_t x) {
  for (std::size_t c = 0; c < 5; ++c) {
    const auto& r = x86_exact.requant;
    const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << r.left[paired_format::lane_of(c)]);
    const std::int64_t product = std::int64_t{shifted} * r.get(r.multiplier, c);
    const std::int64_t tie = product < -(std::int64_t{1} << 30) ? r.get(r.negative, c) : 0;
    const std::int64_t sum = product + r.get(r.addend, c) - tie;
    const std::int64_t v = sum >> r.get(r.shift, c);
    const auto y = static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
    const auto& multiplier = m_foldable[c];
    if (y != ctattn::detail::kernels::requantize_output(x, multiplier.multiplier, multiplier.shift, -3)) return false;
  }
  return true;
}
constexpr bool one_step_matches_all() {
  for (const std::int32_t x : {-2147483647 - 1, -2147483647, -1000000007, -65536, 65535, 123456789, 2147483647}) {
    if (!one_step_matches(x)) return false;
  }
  for (std::int32_t x = -600; x <= 600; ++x) {
    if (!one_step_matches(x)) return false;
  }
  return true;
}
static_assert(one_step_matches_all());
}  // namespace packed_layout

// The dot-product forms' zero points (int8_simd::offset_dot): from the raw sums, the sum of (a - za)(b - zb), here
// over a = {-128, 127, 5}, b = {127, -128, -7} with za = -3, zb = 4, and at the extremes where sum a b alone would
// not fit 16 bits: a and b all -128 over 4 terms, both zero points 127.
namespace offset_dot_check {
constexpr std::int8_t a[3] = {-128, 127, 5};
constexpr std::int8_t b[3] = {127, -128, -7};
constexpr std::int32_t direct(std::int32_t za, std::int32_t zb) {
  std::int32_t s = 0;
  for (std::size_t t = 0; t < 3; ++t) s += (a[t] - za) * (b[t] - zb);
  return s;
}
constexpr std::int32_t ab = -128 * 127 + 127 * -128 - 35;
static_assert(ctattn::detail::int8_simd::offset_dot(ab, 4, -8, -3, 4, 3) == direct(-3, 4));
static_assert(ctattn::detail::int8_simd::offset_dot(ab, 4, -8, 0, 0, 3) == direct(0, 0));
static_assert(ctattn::detail::int8_simd::offset_dot(4 * 16384, -512, -512, 127, 127, 4) == 4 * 255 * 255);
}  // namespace offset_dot_check
