// Static tests of the position encodings (ctattn/position/), evaluated by the compiler against the PyTorch
// fixtures in tests/fixtures/attention/position.hpp and worked_example.hpp.
#include "support/test_data.hpp"

#include <ctattn/attention/mask.hpp>
#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/elementwise.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/row.hpp>
#include <ctattn/matrix/transpose.hpp>
#include <ctattn/matrix/with_extents.hpp>
#include <ctattn/position/alibi.hpp>
#include <ctattn/position/embedding.hpp>
#include <ctattn/position/rotary.hpp>
#include <ctattn/position/sinusoidal.hpp>

#include "fixtures/attention/position.hpp"
#include "fixtures/attention/worked_example.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace {

using ctattn_test::to_matrix;

namespace fx = ctattn_fixtures::position;
namespace we = ctattn_fixtures::worked_example;

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_head : ctattn::dimension<"d_head"> {};

// Distance in units in the last place between two finite values of the same sign class (the order of the
// bit patterns, mapped to a monotonic integer line).
template <typename T>
constexpr std::uint64_t ulp_distance(T a, T b) {
  using bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  using ubits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  auto line = [](T x) {
    const auto i = std::bit_cast<bits>(x);
    return i < 0 ? static_cast<std::int64_t>(std::numeric_limits<bits>::min()) - static_cast<std::int64_t>(i)
                 : static_cast<std::int64_t>(i);
  };
  const std::int64_t d = line(a) - line(b);
  (void)sizeof(ubits);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

template <typename M, typename U>
constexpr std::uint64_t max_ulp(const M& m, const U& reference) {
  std::uint64_t worst = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const auto d = ulp_distance(m(i, j), static_cast<typename M::value_type>(reference[i][j]));
      worst = d > worst ? d : worst;
    }
  }
  return worst;
}

template <typename M, typename U>
constexpr double max_abs(const M& m, const U& reference) {
  double worst = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double d = static_cast<double>(m(i, j)) - static_cast<double>(reference[i][j]);
      worst = d > worst ? d : (-d > worst ? -d : worst);
    }
  }
  return worst;
}

// The helpers themselves.
static_assert(ulp_distance(1.0f, 1.0f) == 0 && ulp_distance(1.0f, 0x1.000002p0f) == 1);
static_assert(ulp_distance(-0.0f, 0.0f) == 0 && ulp_distance(-0x1p-149f, 0x1p-149f) == 2);
static_assert(ulp_distance(1.0, 0x1.0000000000001p0) == 1);

// --- sinusoidal -------------------------------------------------------------------------------------------
// Float tables: every element within 1 ulp of PyTorch's float64 table rounded to float (measured: 0 ulp, the
// same bits, on GCC 12 and Clang 14). Double tables: within 1e-15 of PyTorch's float64 table (measured: 8.9e-16
// at t = 49; the power 10000^(2i/D) comes from exp and log in double, about an ulp from the correctly rounded
// power that torch.pow gives, and the angle t / power carries that error times t).
constexpr auto pe_6_16 = ctattn::sinusoidal_table<float, 6, 16>;
constexpr auto pe_50_8 = ctattn::sinusoidal_table<float, 50, 8>;
static_assert(max_ulp(pe_6_16, fx::sinusoidal::t6_d16::table) <= 1);
static_assert(max_ulp(pe_50_8, fx::sinusoidal::t50_d8::table) <= 1);
static_assert(max_ulp(ctattn::sinusoidal_table<float, 7, 512>, fx::sinusoidal::t7_d512::table) <= 1);
static_assert(max_abs(ctattn::sinusoidal_table<double, 6, 16>, fx::sinusoidal::t6_d16::table_f64) <= 1e-15);
static_assert(max_abs(ctattn::sinusoidal_table<double, 50, 8>, fx::sinusoidal::t50_d8::table_f64) <= 1e-15);

// Position 0: sin 0 = 0 in even columns, cos 0 = 1 in odd ones; column 0 is sin(t) itself.
static_assert([] {
  for (std::size_t i = 0; i < 8; ++i) {
    if (pe_6_16(0, 2 * i) != 0.0f || pe_6_16(0, 2 * i + 1) != 1.0f) return false;
  }
  return true;
}());
static_assert(pe_50_8(1, 0) == 0.841470985f && pe_50_8(1, 1) == 0.540302306f);  // sin 1, cos 1 rounded

// Named extents are kept; the function and the constant agree.
static_assert(
    std::is_same_v<std::remove_cv_t<decltype(ctattn::sinusoidal_position_encoding<float, seq{6}, d_model{16}>())>,
                   ctattn::matrix<float, seq{6}, d_model{16}>>);
static_assert(ctattn::sinusoidal_position_encoding<float, 6, 16>() == pe_6_16);

// --- rotary (RoPE) ----------------------------------------------------------------------------------------
namespace rope_fx = fx::rope;
constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
static_assert(rope.positions == 6 && rope.width == 8 && rope.pairs == 4 && rope.base == 10000);
// Tables: within 1 ulp of the float64 reference rounded (measured: identical).
static_assert(max_ulp(rope.cos_table, rope_fx::cos_table) <= 1);
static_assert(max_ulp(rope.sin_table, rope_fx::sin_table) <= 1);

constexpr auto q = to_matrix<float>(rope_fx::q);
constexpr auto k = to_matrix<float>(rope_fx::k);
using ctattn::rotary_layout;
constexpr auto q_interleaved = ctattn::apply_rotary<rotary_layout::interleaved>(q, rope);
constexpr auto k_interleaved = ctattn::apply_rotary<rotary_layout::interleaved>(k, rope);
constexpr auto q_half = ctattn::apply_rotary<rotary_layout::rotate_half>(q, rope);
constexpr auto k_half = ctattn::apply_rotary<rotary_layout::rotate_half>(k, rope);
// Each rotated value is two float products and a sum (|x| < 3): within 4e-7 of the float64 reference
// (measured: 1.8e-7).
static_assert(max_abs(q_interleaved, rope_fx::q_interleaved_f64) <= 4e-7);
static_assert(max_abs(k_interleaved, rope_fx::k_interleaved_f64) <= 4e-7);
static_assert(max_abs(q_half, rope_fx::q_half_f64) <= 4e-7);
static_assert(max_abs(k_half, rope_fx::k_half_f64) <= 4e-7);
// Scores q_rot k_rot^T: sums of 8 such products (|score| < 8): within 2e-6 of the reference.
static_assert(max_abs(q_interleaved * ctattn::transpose(k_interleaved), rope_fx::scores_interleaved) <= 2e-6);
static_assert(max_abs(q_half * ctattn::transpose(k_half), rope_fx::scores_half) <= 2e-6);
// Position 0 is not rotated: row 0 is copied exactly in both layouts.
static_assert(ctattn::row<0>(q_interleaved) == ctattn::row<0>(q) && ctattn::row<0>(q_half) == ctattn::row<0>(q));

// The two layouts are one permutation apart: rotate_half applied to the columns reordered (even ones first,
// then odd ones) gives the interleaved result reordered the same way, bit for bit.
constexpr auto even_then_odd = [](const auto& m) {
  auto p = m;
  for (std::size_t r = 0; r < 6; ++r) {
    for (std::size_t i = 0; i < 4; ++i) {
      p(r, i) = m(r, 2 * i);
      p(r, 4 + i) = m(r, 2 * i + 1);
    }
  }
  return p;
};
static_assert(ctattn::apply_rotary<rotary_layout::rotate_half>(even_then_odd(q), rope) == even_then_odd(q_interleaved));

// Scores depend on positions only through their difference: shifting every position by 3 (first_position)
// changes them by rounding only.
constexpr auto rope_long = ctattn::make_rotary_table<float, 12, 8>();
static_assert(max_abs(ctattn::apply_rotary<rotary_layout::interleaved>(q, rope_long, 3) *
                          ctattn::transpose(ctattn::apply_rotary<rotary_layout::interleaved>(k, rope_long, 3)),
                      rope_fx::scores_interleaved) <= 1e-5);
static_assert(ctattn::apply_rotary<rotary_layout::interleaved>(q, rope_long) == q_interleaved);

// Named extents of x are kept.
constexpr auto q_named = ctattn::with_extents<seq{6}, d_head{8}>(q);
static_assert(
    std::is_same_v<std::remove_cv_t<decltype(ctattn::apply_rotary<rotary_layout::interleaved>(q_named, rope))>,
                   ctattn::matrix<float, seq{6}, d_head{8}>>);

// --- ALiBi ------------------------------------------------------------------------------------------------
namespace alibi_fx = fx::alibi;
using ctattn::alibi_alignment;
using ctattn::alibi_form;

template <std::size_t Heads, typename Fixture>
constexpr bool slopes_match(const Fixture& expected) {
  const auto slopes = ctattn::alibi_slopes<float, Heads>();
  for (std::size_t h = 0; h < Heads; ++h) {
    if (slopes[h] != expected[h]) return false;
  }
  return true;
}
static_assert(slopes_match<8>(alibi_fx::h8::slopes));
static_assert(slopes_match<6>(alibi_fx::h6::slopes));  // not a power of two: the paper's interleaving rule
static_assert(ctattn::alibi_slopes<double, 1>()[0] == 0x1p-8);
static_assert(ctattn::alibi_slopes<double, 3>() == std::array<double, 3>{0x1p-4, 0x1p-8, 0x1p-2});
// 16 heads: 2^(-k/2); the odd ones are irrational, computed in double and rounded.
static_assert(ctattn::alibi_slopes<double, 16>()[1] == 0.5 && ctattn::alibi_slopes<double, 16>()[15] == 0x1p-8);
static_assert(ulp_distance(ctattn::alibi_slopes<double, 16>()[0], 0.70710678118654752) <= 1);
static_assert(ulp_distance(ctattn::alibi_slopes<float, 16>()[2], 0.353553391f) <= 1);

// Bias matrices: the linear (paper's) and symmetric forms equal the fixture exactly, for every head.
template <std::size_t Heads, alibi_form Form, typename Fixture>
constexpr bool biases_match(const Fixture& expected) {
  const auto biases = ctattn::alibi_biases<float, Heads, 5, 5, Form>();
  for (std::size_t h = 0; h < Heads; ++h) {
    if (biases[h] != to_matrix<float>(expected[h])) return false;
  }
  return true;
}
static_assert(biases_match<8, alibi_form::linear_bias>(alibi_fx::h8::bias_linear));
static_assert(biases_match<6, alibi_form::linear_bias>(alibi_fx::h6::bias_linear));
static_assert(biases_match<8, alibi_form::symmetric_bias>(alibi_fx::h8::bias_symmetric));
static_assert(biases_match<6, alibi_form::symmetric_bias>(alibi_fx::h6::bias_symmetric));

// The causal form: the linear form on and below the diagonal, -inf above it.
static_assert([] {
  const auto causal = ctattn::alibi_biases<float, 6, 5, 5>();  // causal_bias is the default
  for (std::size_t h = 0; h < 6; ++h) {
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t j = 0; j < 5; ++j) {
        const float expected = j <= i ? alibi_fx::h6::bias_linear[h][i][j] : -std::numeric_limits<float>::infinity();
        if (causal[h](i, j) != expected) return false;
      }
    }
  }
  return true;
}());
// Bottom-right alignment (3 queries, 5 keys): query i sits at position i + 2.
constexpr auto bottom_right = ctattn::alibi_bias<alibi_form::causal_bias, 3, 5, alibi_alignment::bottom_right>(0.5f);
static_assert(bottom_right(0, 0) == -1.0f && bottom_right(0, 2) == 0.0f && bottom_right(2, 4) == 0.0f &&
              bottom_right(0, 3) == -std::numeric_limits<float>::infinity() && bottom_right(2, 0) == -2.0f);
constexpr auto top_left = ctattn::alibi_bias<alibi_form::linear_bias, seq{3}, seq{5}>(0.5f);
static_assert(std::is_same_v<std::remove_cv_t<decltype(top_left)>, ctattn::matrix<float, seq{3}, seq{5}>>);
static_assert(top_left(0, 4) == 2.0f && top_left(2, 0) == -1.0f);
// A zero distance is +0 in every form.
static_assert(std::bit_cast<std::uint32_t>(ctattn::alibi_bias<alibi_form::symmetric_bias, 2, 2>(0.5f)(1, 1)) == 0u);

// With the attention kernels: the causal form as an additive bias is the causal mask plus the linear form,
// bit for bit (masked keys get weight 0 either way), in both alignments.
constexpr auto v = to_matrix<float>(rope_fx::k);  // any 6 x 8 values
constexpr auto alibi_causal = ctattn::alibi_bias<alibi_form::causal_bias, 6, 6>(0.25f);
constexpr auto alibi_linear = ctattn::alibi_bias<alibi_form::linear_bias, 6, 6>(0.25f);
static_assert(ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(alibi_causal)) ==
              ctattn::scaled_dot_product_attention(q, k, v,
                                                   ctattn::combine_masks(ctattn::causal,
                                                                         ctattn::additive_bias(alibi_linear))));
constexpr auto q_last3 =
    ctattn::matrix<float, 3, 8>{{{q(3, 0), q(3, 1), q(3, 2), q(3, 3), q(3, 4), q(3, 5), q(3, 6), q(3, 7)},
                                 {q(4, 0), q(4, 1), q(4, 2), q(4, 3), q(4, 4), q(4, 5), q(4, 6), q(4, 7)},
                                 {q(5, 0), q(5, 1), q(5, 2), q(5, 3), q(5, 4), q(5, 5), q(5, 6), q(5, 7)}}};
static_assert(ctattn::scaled_dot_product_attention(
                  q_last3, k, v,
                  ctattn::additive_bias(
                      ctattn::alibi_bias<alibi_form::causal_bias, 3, 6, alibi_alignment::bottom_right>(0.25f))) ==
              ctattn::scaled_dot_product_attention(
                  q_last3, k, v,
                  ctattn::combine_masks(
                      ctattn::causal_bottom_right,
                      ctattn::additive_bias(
                          ctattn::alibi_bias<alibi_form::linear_bias, 3, 6, alibi_alignment::bottom_right>(0.25f)))));
// A KV cache: the last 3 queries against all 6 keys, bottom-right aligned, give the last 3 rows of the full
// causal ALiBi attention (the same scores, biases and keys for each of those rows).
static_assert([] {
  const auto full = ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(alibi_causal));
  const auto cached = ctattn::scaled_dot_product_attention(
      q_last3, k, v,
      ctattn::additive_bias(ctattn::alibi_bias<alibi_form::causal_bias, 3, 6, alibi_alignment::bottom_right>(0.25f)));
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t c = 0; c < 8; ++c) {
      if (cached(i, c) != full(3 + i, c)) return false;
    }
  }
  return true;
}());

// --- token and position embeddings --------------------------------------------------------------------------
// The worked example: "Life is short, eat dessert first" embedded by id is exactly torch.nn.Embedding's x.
constexpr auto embedding_table = to_matrix<float>(we::embedding_table);
constexpr std::array<std::size_t, 6> sentence{we::token_ids[0], we::token_ids[1], we::token_ids[2],
                                              we::token_ids[3], we::token_ids[4], we::token_ids[5]};
static_assert(ctattn::embed_tokens<sentence>(embedding_table) == to_matrix<float>(we::x));
static_assert(ctattn::embed_tokens(embedding_table, sentence) == to_matrix<float>(we::x));
static_assert(ctattn::embed_tokens(embedding_table, we::token_ids) == to_matrix<float>(we::x));
static_assert(ctattn::embed_tokens<std::array{2, 2}>(embedding_table)(1, 3) == we::embedding_table[2][3]);

// Learned position embeddings: row r gets row first_position + r of the table.
constexpr auto position_table = [] {
  ctattn::matrix<float, 8, d_model{16}> table{};
  for (std::size_t p = 0; p < 8; ++p) {
    for (std::size_t j = 0; j < 16; ++j) table(p, j) = static_cast<float>(100 * p + j);
  }
  return table;
}();
constexpr auto x = to_matrix<float>(we::x);
constexpr auto x_positioned = ctattn::add_position_embeddings(x, position_table);
constexpr auto x_shifted = ctattn::add_position_embeddings(x, position_table, 2);
static_assert(std::is_same_v<std::remove_cv_t<decltype(x_positioned)>, ctattn::matrix<float, 6, d_model{16}>>);
static_assert([] {
  for (std::size_t r = 0; r < 6; ++r) {
    for (std::size_t j = 0; j < 16; ++j) {
      if (x_positioned(r, j) != x(r, j) + position_table(r, j)) return false;
      if (x_shifted(r, j) != x(r, j) + position_table(r + 2, j)) return false;
    }
  }
  return true;
}());
// A sequence as long as the table fits.
static_assert(ctattn::add_position_embeddings(position_table, position_table) == position_table + position_table);

}  // namespace
