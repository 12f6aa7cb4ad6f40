// The attention reference fixtures (tests/fixtures/attention/*.hpp) compile, have the shapes their tests rely
// on, and hold together: a broken or truncated regeneration fails the build here.
#include "fixtures/attention/batched.hpp"
#include "fixtures/attention/gradients.hpp"
#include "fixtures/attention/mha_7x512x8.hpp"
#include "fixtures/attention/multihead.hpp"
#include "fixtures/attention/position.hpp"
#include "fixtures/attention/sdpa.hpp"
#include "fixtures/attention/softmax_hard_rows.hpp"
#include "fixtures/attention/worked_example.hpp"
#include "fixtures/attention/worked_example_three_heads.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace {

namespace fx = ctattn_fixtures;

template <class Array, std::size_t... Extents>
constexpr bool has_shape() {
  using A = std::remove_cvref_t<Array>;
  constexpr std::size_t expected[] = {Extents...};
  if (std::rank_v<A> != sizeof...(Extents)) {
    return false;
  }
  bool same = true;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((same = same && std::extent_v<A, static_cast<unsigned>(I)> == expected[I]), ...);
  }(std::make_index_sequence<sizeof...(Extents)>{});
  return same;
}

template <class T>
constexpr T distance(T a, T b) {
  return a < b ? b - a : a - b;
}

template <class T, std::size_t Rows, std::size_t Cols>
constexpr bool rows_sum_to_one(const T (&m)[Rows][Cols], T tolerance) {
  for (std::size_t i = 0; i < Rows; ++i) {
    T sum{};
    for (std::size_t j = 0; j < Cols; ++j) {
      sum += m[i][j];
    }
    if (distance(sum, T{1}) > tolerance) {
      return false;
    }
  }
  return true;
}

template <class T, std::size_t N>
constexpr bool near_all(const T (&a)[N], const T (&b)[N], T tolerance) {
  for (std::size_t i = 0; i < N; ++i) {
    if (distance(a[i], b[i]) > tolerance) {
      return false;
    }
  }
  return true;
}

// --- worked example: shapes and the reference text's published figures --------------------------------------
namespace we = fx::worked_example;
static_assert(we::n_tokens == 6 && we::d_model == 16 && we::d_q == 24 && we::d_k == 24 && we::d_v == 28);
static_assert(has_shape<decltype(we::x), 6, 16>());
static_assert(has_shape<decltype(we::w_query), 24, 16>());
static_assert(has_shape<decltype(we::w_value), 28, 16>());
static_assert(has_shape<decltype(we::scores), 6, 6>());
static_assert(has_shape<decltype(we::context), 6, 28>());
static_assert(has_shape<decltype(we::f64::context), 6, 28>());
static_assert(we::token_ids[1] == 4 && we::vocabulary[we::token_ids[1]][0] == 'i');
static_assert(we::x[1][5] == we::embedding_table[4][5]);
static_assert(distance(we::scores[we::published_query_index][we::published_key_index], we::published_score) <=
              we::published_tolerance);
static_assert(near_all(we::weights[we::published_query_index], we::published_weights_row, we::published_tolerance));
static_assert(near_all(we::context[we::published_query_index], we::published_context_row, we::published_tolerance));
static_assert(rows_sum_to_one(we::weights, 1e-6f));
static_assert(rows_sum_to_one(we::f64::weights, 1e-14));

namespace we3 = fx::worked_example_three_heads;
static_assert(has_shape<decltype(we3::w_query), 3, 24, 16>());
static_assert(has_shape<decltype(we3::w_value), 3, 28, 16>());
static_assert(has_shape<decltype(we3::context), 3, 6, 28>());
static_assert(has_shape<decltype(we3::concat), 6, 84>());
static_assert(we3::w_query[0][23][15] == we::w_query[23][15] && we3::w_query[1][0][0] == we::w_key[0][0]);
static_assert(we3::concat[2][28 + 5] == we3::context[1][2][5]);
static_assert(rows_sum_to_one(we3::weights[2], 1e-6f));

// --- scaled dot-product attention and masks -------------------------------------------------------------------
namespace sd = fx::sdpa;
static_assert(has_shape<decltype(sd::self_attention::output), 5, 6>());
static_assert(has_shape<decltype(sd::cross_attention::weights), 4, 7>());
static_assert(has_shape<decltype(sd::cross_attention::output_f64), 4, 5>());
static_assert(rows_sum_to_one(sd::cross_attention::weights, 1e-6f));
static_assert(!sd::causal_square::allowed[1][2] && sd::causal_square::allowed[2][1]);
static_assert(sd::causal_wide::allowed_top_left[0][0] && !sd::causal_wide::allowed_top_left[0][1]);
static_assert(sd::causal_wide::allowed_bottom_right[0][3] && !sd::causal_wide::allowed_bottom_right[0][4]);
static_assert(sd::causal_tall::output_bottom_right[1][0] == 0.0f &&
              sd::causal_tall::weights_bottom_right[0][3] == 0.0f);
static_assert(has_shape<decltype(sd::key_padding_length::output), 4, 5>() && sd::key_padding_length::valid_length == 4);
static_assert(!sd::key_padding_flags::key_valid[1] && sd::key_padding_flags::weights[3][4] == 0.0f);
static_assert(has_shape<decltype(sd::sliding_window::weights_r2), 7, 7>());
static_assert(sd::sliding_window::weights_r1[0][2] == 0.0f && sd::sliding_window::weights_r2[0][2] > 0.0f);
static_assert(has_shape<decltype(sd::additive_bias::bias), 4, 5>());
static_assert(sd::fully_masked_row::weights[2][0] == 0.0f && sd::fully_masked_row::output[2][4] == 0.0f);
static_assert(sd::fully_masked_row::output_f64[2][0] == 0.0 && rows_sum_to_one(sd::bool_mask::weights_f64, 1e-14));

// --- hard softmax rows ----------------------------------------------------------------------------------------
namespace hr = fx::softmax_hard_rows;
static_assert(hr::overflow_float::n == 4 && hr::overflow_float::softmax[3] > 0.99f);
static_assert(hr::with_neg_inf::input[0] == -std::numeric_limits<float>::infinity());
static_assert(hr::with_neg_inf::softmax[0] == 0.0f && hr::with_neg_inf::softmax_f64[2] == 0.0);
static_assert(hr::large_positive::softmax[1] == hr::large_negative::softmax[2]);

// --- multi-head attention -------------------------------------------------------------------------------------
namespace mh = fx::multihead;
static_assert(has_shape<decltype(mh::self_attention::in_proj_weight), 24, 8>());
static_assert(has_shape<decltype(mh::self_attention::weights_per_head), 2, 5, 5>());
static_assert(mh::self_attention::in_proj_bias[0] != 0.0f && mh::self_attention::out_proj_bias[0] != 0.0f);
static_assert(has_shape<decltype(mh::cross_attention_kdim_vdim::k_proj_weight), 8, 6>());
static_assert(has_shape<decltype(mh::cross_attention_kdim_vdim::v_proj_weight), 8, 4>());
static_assert(has_shape<decltype(mh::cross_attention_kdim_vdim::weights_average), 3, 5>());
static_assert(has_shape<decltype(mh::cross_attention_kdim_vdim::output), 3, 8>());
static_assert(mh::causal_self_attention::weights_per_head[1][0][1] == 0.0f);
static_assert(has_shape<decltype(mh::grouped_query::w_k), 8, 16>());
static_assert(has_shape<decltype(mh::multi_query::w_v), 4, 16>());
static_assert(has_shape<decltype(mh::multi_query::weights_per_head), 4, 5, 5>());

// --- position information -------------------------------------------------------------------------------------
namespace ps = fx::position;
static_assert(has_shape<decltype(ps::sinusoidal::t7_d512::table), 7, 512>());
static_assert(has_shape<decltype(ps::sinusoidal::t50_d8::table_f64), 50, 8>());
static_assert(ps::sinusoidal::t6_d16::table[0][0] == 0.0f && ps::sinusoidal::t6_d16::table[0][1] == 1.0f);
static_assert(has_shape<decltype(ps::rope::q_half), 6, 8>() && ps::rope::q_interleaved[0][3] == ps::rope::q[0][3]);
static_assert(ps::alibi::h6::slopes[4] == 0.5f && ps::alibi::h8::slopes[7] == 0.00390625f);
static_assert(has_shape<decltype(ps::alibi::h6::bias_linear), 6, 5, 5>());

// --- gradients ------------------------------------------------------------------------------------------------
namespace gr = fx::gradients;
static_assert(has_shape<decltype(gr::softmax_jacobian::jacobian_f64), 5, 5>());
static_assert(has_shape<decltype(gr::attention::dq), 4, 6>() && has_shape<decltype(gr::attention::dk_f64), 5, 6>());
static_assert(has_shape<decltype(gr::attention::dv), 5, 3>() && has_shape<decltype(gr::attention::upstream), 4, 3>());

// --- 7 x 512 x 8: the documented generator reproduces the recorded states and values --------------------------
namespace big = fx::mha_7x512x8;
static_assert(has_shape<decltype(big::output), 7, 512>() && has_shape<decltype(big::weights), 8, 7, 7>());

constexpr std::uint32_t lcg_next(std::uint32_t state) {
  return state * big::lcg_multiplier + big::lcg_increment;  // arithmetic mod 2^32
}

constexpr float lcg_value(std::uint32_t state, float scale) {
  return static_cast<float>(static_cast<std::int32_t>(state >> 8) - 8388608) * 0x1p-24f * scale;
}

// The state after `steps` steps from `state`, by composing the affine map x -> a x + c.
constexpr std::uint32_t lcg_jump(std::uint32_t state, std::size_t steps) {
  std::uint32_t a = 1;
  std::uint32_t c = 0;
  std::uint32_t step_a = big::lcg_multiplier;
  std::uint32_t step_c = big::lcg_increment;
  for (; steps != 0; steps >>= 1) {
    if ((steps & 1u) != 0) {
      a = a * step_a;
      c = c * step_a + step_c;
    }
    step_c = step_c * step_a + step_c;
    step_a = step_a * step_a;
  }
  return a * state + c;
}

constexpr bool first_values_reproduce() {
  std::uint32_t state = big::seed;
  for (std::size_t i = 0; i < 8; ++i) {
    state = lcg_next(state);
    if (state != big::first_states[i] || lcg_value(state, big::scale_x) != big::first_values[i]) {
      return false;
    }
  }
  return true;
}
static_assert(first_values_reproduce());
static_assert(lcg_jump(big::seed, big::offset_w_q) == big::state_before_w_q);
static_assert(lcg_jump(big::seed, big::offset_w_o) == big::state_before_w_o);
static_assert(lcg_jump(big::seed, big::total_values) == big::final_state);
static_assert(lcg_value(lcg_next(big::state_before_w_q), big::scale_w) == big::w_q_first[0]);
static_assert(lcg_value(lcg_next(big::state_before_w_k), big::scale_w) == big::w_k_first[0]);
static_assert(lcg_value(lcg_next(big::state_before_w_v), big::scale_w) == big::w_v_first[0]);
static_assert(lcg_value(lcg_next(big::state_before_w_o), big::scale_w) == big::w_o_first[0]);
static_assert(lcg_value(big::final_state, big::scale_w) == big::w_o_last);
static_assert(rows_sum_to_one(big::weights[0], 1e-6f));

}  // namespace

// Attention over a batch with heads (reference text 004): B x h x n x d.
namespace bt = ctattn_fixtures::batched;
static_assert(bt::batch == 2 && bt::heads == 3 && bt::n == 4 && bt::d_k == 5 && bt::d_v == 6);
static_assert(std::is_same_v<decltype(bt::q), const float[2][3][4][5]>);
static_assert(std::is_same_v<decltype(bt::v), const float[2][3][4][6]>);
static_assert(std::is_same_v<decltype(bt::output_causal_f64), const double[2][3][4][6]>);
