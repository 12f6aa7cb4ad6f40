// The headers must not clash with names in user code: this file declares globals with the short names that
// examples and users pick (x, y, s, acc, ...) and calls every operation. Built with -Wshadow -Werror, a header
// whose template declares a lambda parameter of one of these names fails here (GCC reports such parameters as
// shadowing user globals).
#include <ctattn/ctattn.hpp>
#include <ctattn/layers.hpp>  // the float layers the int8 activations and LayerNorm are made from
#include <ctattn/layers/norm.hpp>

#include <array>

constexpr ctattn::matrix<float, 2, 2> x{{{1, 2}, {3, 4}}};
constexpr float y = 2.0f;
constexpr float s = 3.0f;
constexpr float acc = 1.0f;
constexpr float lhs = 0.0f, rhs = 0.0f, element = 0.0f, total = 0.0f, largest = 0.0f, block = 0.0f, part = 0.0f;
constexpr float offset = 0.0f, factor = 0.0f, divisor = 0.0f, value = 0.0f, score = 0.0f, dot = 0.0f, p = 0.0f;
constexpr float q = 0.0f, k = 0.0f, v = 0.0f, w = 0.0f, h = 0.0f, i = 0.0f, j = 0.0f, c = 0.0f, o = 0.0f, e = 0.0f;

constexpr float use_names() {
  return y + s + acc + lhs + rhs + element + total + largest + block + part + offset + factor + divisor + value +
         score + dot + p + q + k + v + w + h + i + j + c + o + e;
}
static_assert(use_names() == 6.0f);

constexpr auto r1 = x / y + x - x * s + (-x) + ctattn::hadamard(x, x);
constexpr auto r2 = ctattn::cast<double>(x);
constexpr auto r3 = ctattn::row_max(x) + ctattn::row_sum(x);
constexpr auto r4 = ctattn::concat_columns(x, x);
constexpr auto r5 = ctattn::concat_columns(ctattn::split_columns<2>(x));
constexpr auto r6 = ctattn::scaled_dot_product_attention(x, x, x, ctattn::causal);
constexpr auto r7 = ctattn::scaled_dot_product_attention(
    x, x, x, ctattn::combine_masks(ctattn::sliding_window<1>, ctattn::additive_bias(x)), ctattn::with_weights);
constexpr auto r8 = ctattn::softmax_rows(x);
constexpr auto r9 = ctattn::multi_head_attention(x, x, x, ctattn::multi_head_attention_weights<float, 2, 2>{});
constexpr auto r10 = ctattn::zip_map(x, x, ctattn::detail::add_elements{});
static_assert(r1(0, 0) + r3(0, 0) + r4(0, 0) + r5(0, 0) + r6(0, 0) + r7.output(0, 0) + r8(0, 0) + r9(0, 0) + r10(0, 0) >
              -1e30f);
static_assert(r2(0, 0) == 1.0);

// The int8 tier under the same names.
constexpr ctattn::quantization q8 = ctattn::quantization_for_range(ctattn::observed_range(x));
constexpr auto r11 = ctattn::multiply<q8>(ctattn::quantize<q8>(x), ctattn::quantize<q8>(x));
static_assert(ctattn::dequantize(r11)(0, 0) > -1e30f && ctattn::largest_magnitude(x) == 4.0);
static_assert(ctattn::softmax_rows(ctattn::quantize<q8>(x)).real(0, 0) < 1.0);
constexpr auto r12 = ctattn::activate(ctattn::quantize<q8>(x), ctattn::quantize_activation<q8, q8>(ctattn::gelu{}));
constexpr auto r13 =
    ctattn::normalize(ctattn::quantize<q8>(x), ctattn::quantize_layer_norm<q8, q8>(ctattn::layer_norm<float, 2>{}));
static_assert(r12.real(1, 1) > 3.5 && r13(0, 0) == -128 && r13.real(0, 1) > 0.9 && ctattn::math::isqrt(17) == 4);
constexpr auto r14 = ctattn::scaled_dot_product_attention<q8, q8>(ctattn::quantize<q8>(x), ctattn::quantize<q8>(x),
                                                                  ctattn::quantize<q8>(x), ctattn::causal);
constexpr ctattn::linear<float, 2, 2, ctattn::out_by_in, true> r15{};
constexpr auto r16 = ctattn::quantize_linear<q8, q8>(r15);
constexpr auto r17 = ctattn::multi_head_attention<q8>(
    ctattn::quantize<q8>(x), ctattn::make_qmulti_head_attention_weights<2>(r16, r16, r16, r16));
constexpr ctattn::encoder_layer_quantizations r18{q8, q8, q8, q8, q8, q8, q8, q8, q8, q8, q8, q8, q8, q8};
constexpr auto r19 =
    ctattn::quantize_encoder_layer<r18>(ctattn::transformer_encoder_layer<float, 2, 1, 4, ctattn::gelu, true>{})
        .forward(ctattn::quantize<q8>(x));
static_assert(r14.real(0, 0) > -1e30 && r17.real(0, 0) > -1e30 && r19.real(0, 0) > -1e30);
