// The fast arithmetic of one SIMD backend, built once per backend (tests/backend/CMakeLists.txt sets the target
// flags and CTATTN_TEST_BACKEND): every kernel against the exact kernels of the same build and against the
// PyTorch fixtures, with the bounds docs/kernels.md states, and the softmax's hard rows and every mask kind.
#include "catch.hpp"
#include "fixtures/attention/gradients.hpp"
#include "fixtures/attention/softmax_hard_rows.hpp"
#include "fixtures/math/math_reference.hpp"
#include "support/attention_cases.hpp"
#include "support/fast_bounds.hpp"
#include "support/fast_layer_cases.hpp"
#include "support/layer_cases.hpp"
#include "support/llama_cases.hpp"
#include "support/mha_7x512x8.hpp"
#include "support/multihead_cases.hpp"
#include "support/test_data.hpp"

#include <ctattn/ctattn.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace {

using ctattn_test::opaque;
using ctattn_test::random_matrix;
constexpr float inf = std::numeric_limits<float>::infinity();

// The bounds of docs/kernels.md.
// Attention, multi-head attention and the backward pass: |fast - exact| <= 2^-17 (1 + |exact|) per element
// (inputs of magnitude <= 1: random_matrix draws from [-0.5, 0.5)).
constexpr float attention_bound = 0x1p-17f;
// Products: |fast - exact| <= K 2^-23 sum_k |a_ik b_kj| (twice the classic bound of one float dot product).
// Softmax: |fast - exact| <= 2^-20 max(w, 2^-126) per weight (the vector exp's 2 ulp plus the normalization).
constexpr float softmax_bound = 0x1p-20f;

template <typename M>
float worst_relative_excess(const M& fast, const M& exact, float bound) {
  float worst = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const float allowed = bound * (1.0f + std::fabs(exact(i, j)));
      const float d = std::fabs(fast(i, j) - exact(i, j));
      worst = std::fmax(worst, d / allowed);
      if (std::isnan(fast(i, j)) != std::isnan(exact(i, j))) worst = inf;
    }
  }
  return worst;  // <= 1 when every element is within its bound
}

template <typename M>
bool same_bits(const M& a, const M& b) {
  return std::memcmp(a.data(), b.data(), sizeof(float) * M::size) == 0;
}

}  // namespace

TEST_CASE("this build computes with the backend it was built for", "[backend]") {
  INFO("ctattn::simd_backend_name is " << ctattn::simd_backend_name);
  CHECK(std::strcmp(ctattn::simd_backend_name, CTATTN_TEST_BACKEND) == 0);
  CHECK(ctattn_test::fast_at_run_time);
}

TEST_CASE("the vector exp is within 2 ulp of e^x on the softmax's range", "[backend][exp]") {
  using ops = ctattn::detail::simd_ops;
  constexpr std::size_t n = 1 << 16;
  static float x[n];
  static float y[n];
  for (std::size_t i = 0; i < n; ++i) x[i] = -87.0f * static_cast<float>(i) / static_cast<float>(n - 1);
  // exp_shifted takes whole vectors and a partial tail: n - 3 leaves a tail on every backend.
  ctattn::detail::simd::exp_shifted<ops>(x, y, n - 3, 0.0f);
  float worst_ulp = 0;
  for (std::size_t i = 0; i < n - 3; ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    const double ulp = static_cast<double>(std::nextafter(static_cast<float>(exact), inf) - static_cast<float>(exact));
    worst_ulp = std::fmax(worst_ulp, static_cast<float>(std::fabs(static_cast<double>(y[i]) - exact) / ulp));
  }
  INFO("worst error " << worst_ulp << " ulp");
  CHECK(worst_ulp <= 2.0f);
  // The committed correctly rounded values (tests/fixtures/math/, mpmath) in the same range.
  namespace reference = ctattn_test::math_reference;
  for (const auto& p : reference::exp_float) {
    if (!(p.x <= 0.0f && p.x >= -87.0f)) continue;
    const float fast = ctattn::detail::simd::exp_one<ops>(p.x);
    INFO("x = " << p.x);
    CHECK(reference::ulp_distance(fast, p.y) <= 2);
  }
  CHECK(ctattn::detail::simd::exp_one<ops>(0.0f) == 1.0f);
  CHECK(ctattn::detail::simd::exp_one<ops>(-inf) == 0.0f);
  CHECK(ctattn::detail::simd::exp_one<ops>(-100.0f) == 0.0f);
  CHECK(std::isnan(ctattn::detail::simd::exp_one<ops>(std::nanf(""))));
}

TEST_CASE("the fast softmax keeps the meaning of the hard rows", "[backend][softmax]") {
  namespace fx = ctattn_fixtures::softmax_hard_rows;
  const auto check = [](const auto& input, const auto& expected) {
    const auto w = ctattn::softmax_rows(opaque(ctattn::row_from_array(input)));
    const auto want = ctattn::row_from_array(expected);
    INFO("max difference " << ctattn::max_abs_difference(w, want));
    CHECK(ctattn::approx_equal(w, want, 0.0f, 2 * softmax_bound));
  };
  check(fx::large_positive::input, fx::large_positive::softmax);
  check(fx::large_negative::input, fx::large_negative::softmax);
  check(fx::overflow_float::input, fx::overflow_float::softmax);
  check(fx::with_neg_inf::input, fx::with_neg_inf::softmax);
  check(fx::equal::input, fx::equal::softmax);

  // Rows of every length around the vector width, against the exact softmax.
  const auto x = ctattn::scale(random_matrix<ctattn::matrix<float, 4, 37>>(5), 60.0f);
  const auto fast = ctattn::softmax_rows(opaque(x));
  ctattn::matrix<float, 4, 37> exact{};
  for (std::size_t i = 0; i < 4; ++i) ctattn::detail::softmax_row(x.elements[i], exact.elements[i], 0, 37);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 37; ++j) {
      CHECK(std::fabs(fast(i, j) - exact(i, j)) <= softmax_bound * std::fmax(exact(i, j), 0x1p-126f));
    }
  }

  const ctattn::matrix<float, 4, 5> edges{{{-inf, -inf, -inf, -inf, -inf},
                                           {1, std::nanf(""), 3, 4, 5},
                                           {inf, 1, inf, -inf, 2},
                                           {-inf, 0, -inf, -inf, -inf}}};
  const auto w = ctattn::softmax_rows(opaque(edges));
  for (std::size_t j = 0; j < 5; ++j) CHECK(w(0, j) == 0.0f);  // all masked: zeros
  for (std::size_t j = 0; j < 5; ++j) CHECK(std::isnan(w(1, j)));
  CHECK(w(2, 0) == 0.5f);  // +inf entries share the weight
  CHECK(w(2, 2) == 0.5f);
  CHECK(w(2, 1) == 0.0f);
  CHECK(w(3, 1) == 1.0f);
}

namespace {
// sum_k |a_ik b_kj| and the double-precision product, for the products' bound.
template <typename C, typename A, typename B>
void check_product(const C& fast, const A& a, const B& b) {
  constexpr std::size_t M = A::rows;
  constexpr std::size_t K = A::cols;
  constexpr std::size_t N = B::cols;
  float worst = 0;
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      double exact = 0;
      double magnitude = 0;
      for (std::size_t k = 0; k < K; ++k) {
        exact += static_cast<double>(a(i, k)) * static_cast<double>(b(k, j));
        magnitude += std::fabs(static_cast<double>(a(i, k)) * static_cast<double>(b(k, j)));
      }
      const double allowed = static_cast<double>(K) * 0x1p-24 * magnitude + 1e-30;
      worst = std::fmax(worst, static_cast<float>(std::fabs(static_cast<double>(fast(i, j)) - exact) / allowed));
    }
  }
  INFO("worst error / bound " << worst);
  CHECK(worst <= 1.0f);
}

template <std::size_t M, std::size_t K, std::size_t N>
void products(std::uint32_t seed) {
  const auto a = random_matrix<ctattn::matrix<float, M, K>>(seed);
  const auto b = random_matrix<ctattn::matrix<float, K, N>>(seed + 1);
  check_product(opaque(a) * opaque(b), a, b);
  // The projections: x W (in x out) and x W^T + bias (nn.Linear's layout).
  const ctattn::linear<float, K, N> in_by_out{b};
  check_product(ctattn::project(opaque(a), in_by_out), a, b);
  ctattn::linear<float, K, N, ctattn::out_by_in, true> out_by_in{ctattn::transpose(b), {}};
  for (std::size_t j = 0; j < N; ++j) out_by_in.bias(0, j) = 0.0f;
  check_product(ctattn::project(opaque(a), out_by_in), a, b);
}
}  // namespace

TEST_CASE("fast products are within K 2^-23 sum |a b| of the exact product", "[backend][product]") {
  products<1, 1, 1>(1);
  products<7, 13, 29>(3);
  products<16, 64, 64>(5);
  products<33, 40, 17>(7);
  products<7, 512, 48>(9);
  products<9, 3, 100>(11);
  // One row (a decoding step: B streamed row after row, depth not a multiple of 4, a partial last vector) and
  // two and three rows (wider panels than the tile's).
  products<1, 37, 100>(13);
  products<1, 5, 130>(15);
  products<1, 512, 67>(17);
  products<2, 64, 100>(19);
  products<3, 9, 70>(21);
  // Three to seven rows: panels as wide as the backend's panel registers allow (AVX-512: 7, 6, 5, 4 and 3 vectors),
  // whole panels, then a narrower one with a partial last vector (on AVX-512; other backends other splits).
  products<3, 9, 130>(31);
  products<4, 8, 200>(23);
  products<5, 64, 100>(25);
  products<6, 17, 130>(27);
  products<7, 33, 100>(29);
}

namespace {
// Fast against exact for one mask, every result form; Q, K, V random in [-0.5, 0.5) times `scale`.
template <std::size_t NQ, std::size_t NKV, std::size_t DK, std::size_t DV, typename Mask>
void attention_against_exact(const Mask& mask, std::uint32_t seed, float scale = 1.0f) {
  static const auto q = ctattn::scale(random_matrix<ctattn::matrix<float, NQ, DK>>(seed), scale);
  static const auto k = ctattn::scale(random_matrix<ctattn::matrix<float, NKV, DK>>(seed + 1), scale);
  static const auto v = random_matrix<ctattn::matrix<float, NKV, DV>>(seed + 2);
  const auto exact =
      ctattn::scaled_dot_product_attention(q, k, v, mask, ctattn::with_weights, ctattn::exact_arithmetic);
  const auto fast = ctattn::scaled_dot_product_attention(opaque(q), opaque(k), opaque(v), mask);
  const auto fast_with = ctattn::scaled_dot_product_attention(opaque(q), opaque(k), opaque(v), mask,
                                                              ctattn::with_weights, ctattn::fast_arithmetic);
  static ctattn::matrix<float, NQ, DV> into{};
  ctattn::scaled_dot_product_attention(opaque(q), opaque(k), opaque(v), mask, ctattn::into(into));
  INFO("n_q " << NQ << ", n_kv " << NKV << ", d_k " << DK << ", d_v " << DV);
  CHECK(worst_relative_excess(fast, exact.output, attention_bound) <= 1.0f);
  CHECK(worst_relative_excess(fast_with.output, exact.output, attention_bound) <= 1.0f);
  CHECK(worst_relative_excess(fast_with.weights, exact.weights, attention_bound) <= 1.0f);
  CHECK(same_bits(into, fast));
}

template <std::size_t NQ, std::size_t NKV, std::size_t DK, std::size_t DV>
void every_mask(std::uint32_t seed) {
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::no_mask, seed);
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::causal, seed);
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::causal_bottom_right, seed);
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::key_padding_length{NKV / 2 + 1}, seed);
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::key_padding_length{0}, seed);
  ctattn::key_padding_flags<NKV> flags{};
  for (std::size_t j = 0; j < NKV; ++j) flags.valid[j] = j % 3 != 1;
  attention_against_exact<NQ, NKV, DK, DV>(flags, seed);
  ctattn::boolean_mask<NQ, NKV> allowed{};
  for (std::size_t i = 0; i < NQ; ++i) {
    for (std::size_t j = 0; j < NKV; ++j) allowed.allowed_keys[i][j] = (i * 7 + j * 3) % 5 != 0 && i != 2;
  }
  attention_against_exact<NQ, NKV, DK, DV>(allowed, seed);  // row 2 sees no key
  auto bias = ctattn::scale(random_matrix<ctattn::matrix<float, NQ, NKV>>(seed + 9), 4.0f);
  bias(0, 0) = -inf;
  bias(1, NKV - 1) = -inf;
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::additive_bias(bias), seed);
  attention_against_exact<NQ, NKV, DK, DV>(ctattn::combine_masks(ctattn::causal, ctattn::key_padding_length{NKV - 1}),
                                           seed);
  if constexpr (NQ == NKV) {
    attention_against_exact<NQ, NKV, DK, DV>(ctattn::sliding_window<3>, seed);
    attention_against_exact<NQ, NKV, DK, DV>(ctattn::causal_sliding_window<5>, seed);
    const auto window_and_bias = ctattn::combine_masks(ctattn::sliding_window<2>, ctattn::additive_bias(bias));
    attention_against_exact<NQ, NKV, DK, DV>(window_and_bias, seed);
  }
}
}  // namespace

TEST_CASE("fast attention is within its bound of exact attention, for every mask kind and form",
          "[backend][attention]") {
  every_mask<6, 6, 16, 16>(21);    // the worked example's size
  every_mask<5, 5, 8, 6>(23);      // narrower than one vector
  every_mask<17, 17, 33, 19>(25);  // tails everywhere
  every_mask<64, 64, 64, 64>(27);
  every_mask<9, 40, 12, 7>(29);  // cross-attention, n_q < n_kv
  every_mask<40, 9, 12, 7>(31);  // n_q > n_kv
  // Key chunks: d_k = 512 packs 32 keys at a time, so 100 keys take 4 chunks and the online softmax rescales.
  every_mask<11, 11, 512, 24>(33);
  attention_against_exact<9, 100, 512, 24>(ctattn::no_mask, 35);
  attention_against_exact<100, 100, 512, 24>(ctattn::sliding_window<7>, 37);
  attention_against_exact<100, 100, 512, 24>(ctattn::causal, 39);
  // Large scores (softmax rows like [1000, 1001, 999]): scale the inputs.
  attention_against_exact<16, 16, 8, 8>(ctattn::no_mask, 41, 60.0f);
  attention_against_exact<16, 16, 8, 8>(ctattn::causal, 43, 200.0f);
}

TEST_CASE("fast attention gives NaN and +inf scores the exact kernel's meaning", "[backend][attention]") {
  // d_k = 1, so the scores are q k exactly: [1000, 1001, 999], then +inf twice, then NaN.
  ctattn::matrix<float, 3, 1> q{{{1.0f}, {inf}, {1.0f}}};
  ctattn::matrix<float, 3, 1> k{{{1000.0f}, {1001.0f}, {999.0f}}};
  ctattn::matrix<float, 3, 2> v{{{1, 2}, {3, 4}, {5, 6}}};
  const auto exact = ctattn::scaled_dot_product_attention(q, k, v, ctattn::exact_arithmetic, ctattn::with_weights);
  const auto fast = ctattn::scaled_dot_product_attention(opaque(q), opaque(k), opaque(v));
  CHECK(worst_relative_excess(fast, exact.output, attention_bound) <= 1.0f);
  // Row 1 scores +inf on every key: the weights share equally, as in the exact kernel, bit for bit.
  CHECK(fast(1, 0) == exact.output(1, 0));
  CHECK(fast(1, 1) == exact.output(1, 1));
  k(1, 0) = std::nanf("");
  const auto nan_fast = ctattn::scaled_dot_product_attention(opaque(q), opaque(k), opaque(v));
  for (std::size_t i = 0; i < 3; ++i) CHECK(std::isnan(nan_fast(i, 0)));
}

TEST_CASE("the PyTorch attention fixtures hold with fast arithmetic", "[backend][attention][fixtures]") {
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::attention_cases::every_case>(
      ctattn_test::identity, [](const char* name, std::size_t, const ctattn_test::attention_check& c) {
        INFO(name << ": float output difference " << c.float_output_difference << ", weights "
                  << c.float_weights_difference);
        CHECK(c.all());
      });
}

TEST_CASE("the PyTorch multi-head fixtures hold with fast arithmetic", "[backend][multihead][fixtures]") {
  ctattn_test::for_each_case<ctattn_test::with_each_backend, ctattn_test::multihead_cases::every_case>(
      ctattn_test::identity, [](const char* name, std::size_t mismatches) {
        INFO(name);
        CHECK(mismatches == 0);
      });

  namespace m = ctattn_test::mha_7x512x8;
  static m::model model{};
  m::generate(model);
  static ctattn::multi_head_workspace<m::input_type, m::input_type, m::weights_type> workspace{};
  static m::input_type fast{};
  ctattn::multi_head_attention(model.x, model.x, model.x, model.weights, ctattn::into(fast, workspace));
  static m::input_type exact{};
  ctattn::multi_head_attention(model.x, model.x, model.x, model.weights, ctattn::into(exact, workspace),
                               ctattn::exact_arithmetic);
  const auto expected = ctattn::from_array<m::seq{7}, m::d_model{512}>(m::fx::output);
  INFO("against PyTorch " << ctattn::max_abs_difference(fast, expected));
  CHECK(ctattn::approx_equal(fast, expected, 1e-5f, 1e-5f));
  // |values| reach ~40 here: the bound scales with 1 + |exact|, and the projections sum 512 terms.
  CHECK(worst_relative_excess(fast, exact, 4 * attention_bound) <= 1.0f);
}

TEST_CASE("fast multi-head attention is within its bound of exact, with every head layout", "[backend][multihead]") {
  using weights_type = ctattn::multi_head_attention_weights<float, 4, 64, ctattn::out_by_in, true>;
  static weights_type w{};
  w.query = {random_matrix<ctattn::matrix<float, 64, 64>>(51), random_matrix<ctattn::matrix<float, 1, 64>>(52)};
  w.key = {random_matrix<ctattn::matrix<float, 64, 64>>(53), random_matrix<ctattn::matrix<float, 1, 64>>(54)};
  w.value = {random_matrix<ctattn::matrix<float, 64, 64>>(55), random_matrix<ctattn::matrix<float, 1, 64>>(56)};
  w.output = {random_matrix<ctattn::matrix<float, 64, 64>>(57), random_matrix<ctattn::matrix<float, 1, 64>>(58)};
  const auto x = random_matrix<ctattn::matrix<float, 16, 64>>(59);
  const auto exact =
      ctattn::multi_head_attention(x, x, x, w, ctattn::causal, ctattn::with_weights, ctattn::exact_arithmetic);
  const auto fast =
      ctattn::multi_head_attention(opaque(x), opaque(x), opaque(x), w, ctattn::causal, ctattn::with_weights);
  CHECK(worst_relative_excess(fast.output, exact.output, attention_bound) <= 1.0f);
  CHECK(worst_relative_excess(fast.mean_weights, exact.mean_weights, attention_bound) <= 1.0f);
  const auto plain = ctattn::multi_head_attention(opaque(x), opaque(x), opaque(x), w, ctattn::causal);
  CHECK(worst_relative_excess(plain, exact.output, attention_bound) <= 1.0f);
  // The weights in the reference text's in x out layout run the broadcast product instead of dot products.
  static const auto text_layout = ctattn::relayout<ctattn::in_by_out>(w);
  const auto relaid = ctattn::multi_head_attention(opaque(x), opaque(x), opaque(x), text_layout, ctattn::causal);
  CHECK(worst_relative_excess(relaid, exact.output, attention_bound) <= 1.0f);

  using grouped_type = ctattn::grouped_query_attention_weights<float, 4, 2, 64, 16>;
  grouped_type g{};
  g.query = {random_matrix<ctattn::matrix<float, 64, 64>>(61)};
  g.key = {random_matrix<ctattn::matrix<float, 64, 32>>(62)};
  g.value = {random_matrix<ctattn::matrix<float, 64, 32>>(63)};
  g.output = {random_matrix<ctattn::matrix<float, 64, 64>>(64)};
  const auto g_exact = ctattn::grouped_query_attention(x, x, x, g, ctattn::exact_arithmetic);
  const auto g_fast = ctattn::grouped_query_attention(opaque(x), opaque(x), opaque(x), g);
  CHECK(worst_relative_excess(g_fast, g_exact, attention_bound) <= 1.0f);
}

namespace {
// The fast backward pass against the exact one (whose run-time bits are the constant-evaluated ones:
// tests/runtime/gradient_test.cpp), for Q, K, V and G random in [-0.5, 0.5).
template <std::size_t NQ, std::size_t NKV, std::size_t DK, std::size_t DV>
void backward_against_exact(std::uint32_t seed) {
  static const auto q = random_matrix<ctattn::matrix<float, NQ, DK>>(seed);
  static const auto k = random_matrix<ctattn::matrix<float, NKV, DK>>(seed + 1);
  static const auto v = random_matrix<ctattn::matrix<float, NKV, DV>>(seed + 2);
  static const auto g = random_matrix<ctattn::matrix<float, NQ, DV>>(seed + 3);
  const auto exact = ctattn::attention_backward(q, k, v, g, ctattn::exact_arithmetic);
  const auto fast = ctattn::attention_backward(opaque(q), opaque(k), opaque(v), opaque(g));
  INFO("n_q " << NQ << ", n_kv " << NKV << ", d_k " << DK << ", d_v " << DV);
  CHECK(worst_relative_excess(fast.queries, exact.queries, attention_bound) <= 1.0f);
  CHECK(worst_relative_excess(fast.keys, exact.keys, attention_bound) <= 1.0f);
  CHECK(worst_relative_excess(fast.values, exact.values, attention_bound) <= 1.0f);
}
}  // namespace

TEST_CASE("the fast backward pass is within its bound of exact and matches autograd", "[backend][gradient]") {
  backward_against_exact<9, 13, 20, 7>(75);    // one partial block of queries
  backward_against_exact<37, 17, 12, 5>(79);   // two blocks of 16 and a rest of 5, each adding to dK and dV
  backward_against_exact<64, 64, 64, 64>(71);  // the benchmark's size

  namespace att = ctattn_fixtures::gradients::attention;
  const auto grad =
      ctattn::attention_backward(opaque(ctattn::from_array(att::q)), opaque(ctattn::from_array(att::k)),
                                 opaque(ctattn::from_array(att::v)), opaque(ctattn::from_array(att::upstream)));
  CHECK(ctattn::approx_equal(grad.queries, ctattn::from_array(att::dq), 2e-6f, 2e-6f));
  CHECK(ctattn::approx_equal(grad.keys, ctattn::from_array(att::dk), 2e-6f, 2e-6f));
  CHECK(ctattn::approx_equal(grad.values, ctattn::from_array(att::dv), 2e-6f, 2e-6f));
}

TEST_CASE("every layer matches PyTorch with this backend's fast arithmetic", "[backend][layers]") {
  for (const ctattn_test::layer_cases::result& r : ctattn_test::layer_cases::results()) {
    INFO(std::string(r.name) << ": error " << r.error << ", bound " << r.bound);
    CHECK(r.error <= r.bound);
  }
  for (const ctattn_test::layer_cases::result& r : ctattn_test::layer_cases::front_end_results()) {
    INFO(std::string(r.name) << ": error " << r.error << ", bound " << r.bound);
    CHECK(r.error <= r.bound);
  }
}

TEST_CASE("the llama layers match PyTorch with this backend's fast arithmetic", "[backend][layers][llama]") {
  for (const ctattn_test::llama_cases::result& r : ctattn_test::llama_cases::results()) {
    INFO(std::string(r.name) << ": error " << r.error << ", bound " << r.bound);
    CHECK(r.error <= r.bound);
  }
}

TEST_CASE("the fast activations and norms are within their bounds of exact, non-finite entries as exact",
          "[backend][layers]") {
  for (const ctattn_test::fast_layer_cases::outcome& r : ctattn_test::fast_layer_cases::results()) {
    INFO(r.name << ": largest difference " << r.worst << " (1 + |exact|), bound " << r.bound);
    CHECK(r.worst <= r.bound);
    CHECK(r.meaning_kept);
    CHECK(r.fast_ran);
  }
}
