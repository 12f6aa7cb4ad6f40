// Run-time tests of the gradients: the PyTorch autograd fixtures at run time, the same bits as constant
// evaluation, and finite differences in double.
#include "catch.hpp"
#include "support/test_data.hpp"

#include <ctattn/attention/gradient.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/elementwise.hpp>
#include <ctattn/matrix/reduce.hpp>
#include <ctattn/matrix/transpose.hpp>

#include "fixtures/attention/gradients.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace {

using ctattn_test::to_matrix;
using ctattn_test::to_row;

namespace jac = ctattn_fixtures::gradients::softmax_jacobian;
namespace att = ctattn_fixtures::gradients::attention;
using ctattn_test::bit_identical;
using ctattn_test::opaque;
using ctattn_test::random_matrix;

struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// The loss L = sum(O * G), O = softmax(Q K^T / sqrt(d_k)) V, written out independently of the library
// (textbook loops, std::exp, no max subtraction: the inputs here are small).
template <typename Q, typename K, typename V, typename G>
double attention_loss(const Q& q, const K& k, const V& v, const G& g) {
  double loss = 0;
  for (std::size_t i = 0; i < Q::rows; ++i) {
    double weights[K::rows]{};
    double total = 0;
    for (std::size_t j = 0; j < K::rows; ++j) {
      double dot = 0;
      for (std::size_t c = 0; c < Q::cols; ++c) dot += q(i, c) * k(j, c);
      weights[j] = std::exp(dot / std::sqrt(static_cast<double>(Q::cols)));
      total += weights[j];
    }
    for (std::size_t c = 0; c < V::cols; ++c) {
      double out = 0;
      for (std::size_t j = 0; j < K::rows; ++j) out += weights[j] / total * v(j, c);
      loss += out * g(i, c);
    }
  }
  return loss;
}

// Central differences of f with respect to every element of x, compared with the analytic gradient.
// Step 1e-5: truncation error ~1e-10 times the third derivative, rounding error ~1e-16 / 1e-5 = 1e-11.
template <typename M, typename F>
double worst_finite_difference_error(M x, const M& gradient, F loss) {
  constexpr double step = 1e-5;
  double worst = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double saved = x(i, j);
      x(i, j) = saved + step;
      const double up = loss(x);
      x(i, j) = saved - step;
      const double down = loss(x);
      x(i, j) = saved;
      const double numeric = (up - down) / (2 * step);
      worst = std::fmax(worst, std::fabs(numeric - gradient(i, j)) / (1 + std::fabs(numeric)));
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("the softmax Jacobian at run time matches PyTorch and the constant one", "[gradient][softmax]") {
  static constexpr auto s = to_row<float>(jac::s);
  static constexpr auto constant = ctattn::softmax_jacobian(s);
  const auto run_time = ctattn::softmax_jacobian(opaque(s));
  CHECK(bit_identical(run_time, constant));
  CHECK(ctattn::approx_equal(run_time, to_matrix<float>(jac::jacobian), 6e-8f));

  static constexpr auto z = to_row<float>(jac::z);
  static constexpr auto from_logits_constant = ctattn::softmax_jacobian_from_logits(z);
  const auto from_logits = ctattn::softmax_jacobian_from_logits(opaque(z));
  CHECK(bit_identical(from_logits, from_logits_constant));
  CHECK(ctattn::approx_equal(from_logits, to_matrix<float>(jac::jacobian), 1.2e-7f));

  static constexpr auto z_double = to_row<double>(jac::z);
  static constexpr auto double_constant = ctattn::softmax_jacobian_from_logits(z_double);
  const auto double_run_time = ctattn::softmax_jacobian_from_logits(opaque(z_double));
  CHECK(bit_identical(double_run_time, double_constant));
  CHECK(ctattn::approx_equal(double_run_time, to_matrix<double>(jac::jacobian_f64), 2e-16));
}

TEST_CASE("the softmax Jacobian's rows sum to zero and it matches finite differences", "[gradient][softmax]") {
  using row_type = ctattn::matrix<double, 1, 9>;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    auto z = random_matrix<row_type>(seed);
    for (std::size_t j = 0; j < 9; ++j) z(0, j) *= 8;  // logits in [-4, 4)
    const auto j = ctattn::softmax_jacobian_from_logits(opaque(z));
    // Rows sum to s_i (1 - sum_k s_k) = 0 up to rounding: 9 terms of at most 1/4, each rounded (2^-55 at most)
    // and summed with 8 roundings: 17 * 2^-55 < 5e-16.
    INFO("largest |row sum|: " << ctattn::max_abs_difference(ctattn::row_sum(j), ctattn::matrix<double, 9, 1>{}));
    CHECK(ctattn::approx_equal(ctattn::row_sum(j), ctattn::matrix<double, 9, 1>{}, 5e-16));
    CHECK(ctattn::approx_equal(ctattn::row_sum(ctattn::transpose(j)), ctattn::matrix<double, 9, 1>{}, 5e-16));
    // Column k is d s / d z_k.
    auto softmax = [](row_type x) {
      double m = x(0, 0);
      for (std::size_t c = 1; c < 9; ++c) m = std::fmax(m, x(0, c));
      double total = 0;
      for (std::size_t c = 0; c < 9; ++c) total += std::exp(x(0, c) - m);
      row_type s{};
      for (std::size_t c = 0; c < 9; ++c) s(0, c) = std::exp(x(0, c) - m) / total;
      return s;
    };
    for (std::size_t k = 0; k < 9; ++k) {
      auto up = z;
      auto down = z;
      up(0, k) += 1e-6;
      down(0, k) -= 1e-6;
      const auto s_up = softmax(up);
      const auto s_down = softmax(down);
      for (std::size_t i = 0; i < 9; ++i) CHECK(std::fabs((s_up(0, i) - s_down(0, i)) / 2e-6 - j(i, k)) <= 1e-9);
    }
  }
}

TEST_CASE("attention gradients at run time match PyTorch autograd and the constant ones", "[gradient]") {
  static constexpr auto q = to_matrix<float>(att::q);
  static constexpr auto k = to_matrix<float>(att::k);
  static constexpr auto v = to_matrix<float>(att::v);
  static constexpr auto g = to_matrix<float>(att::upstream);
  static constexpr auto constant = ctattn::attention_backward(q, k, v, g);
  const auto grad = ctattn::attention_backward(opaque(q), opaque(k), opaque(v), opaque(g));
  CHECK(bit_identical(grad.queries, constant.queries));
  CHECK(bit_identical(grad.keys, constant.keys));
  CHECK(bit_identical(grad.values, constant.values));
  // Measured: 1.6e-7 (dQ), 1.1e-7 (dK), 1.4e-7 (dV) from the float64 values.
  CHECK(ctattn::max_abs_difference(grad.queries, to_matrix<float>(att::dq)) <= 4e-7f);
  CHECK(ctattn::max_abs_difference(grad.keys, to_matrix<float>(att::dk)) <= 4e-7f);
  CHECK(ctattn::max_abs_difference(grad.values, to_matrix<float>(att::dv)) <= 4e-7f);

  static constexpr auto q64 = to_matrix<double>(att::q);
  static constexpr auto k64 = to_matrix<double>(att::k);
  static constexpr auto v64 = to_matrix<double>(att::v);
  static constexpr auto g64 = to_matrix<double>(att::upstream);
  static constexpr auto constant64 = ctattn::attention_backward(q64, k64, v64, g64);
  const auto grad64 = ctattn::attention_backward(opaque(q64), opaque(k64), opaque(v64), opaque(g64));
  CHECK(bit_identical(grad64.queries, constant64.queries));
  CHECK(bit_identical(grad64.keys, constant64.keys));
  CHECK(bit_identical(grad64.values, constant64.values));
  // Measured: 2.2e-16 for each.
  CHECK(ctattn::max_abs_difference(grad64.queries, to_matrix<double>(att::dq_f64)) <= 1e-15);
  CHECK(ctattn::max_abs_difference(grad64.keys, to_matrix<double>(att::dk_f64)) <= 1e-15);
  CHECK(ctattn::max_abs_difference(grad64.values, to_matrix<double>(att::dv_f64)) <= 1e-15);
}

TEST_CASE("attention gradients match central finite differences in double", "[gradient]") {
  // Cross-attention shapes with named extents: 3 queries, 7 keys, d_k = 5, d_v = 4.
  using q_type = ctattn::matrix<double, seq_q{3}, d_k{5}>;
  using k_type = ctattn::matrix<double, seq_kv{7}, d_k{5}>;
  using v_type = ctattn::matrix<double, seq_kv{7}, d_v{4}>;
  using g_type = ctattn::matrix<double, seq_q{3}, d_v{4}>;
  for (std::uint32_t seed = 100; seed < 110; ++seed) {
    const auto q = 4.0 * random_matrix<q_type>(seed);  // entries in [-2, 2): weights far from uniform
    const auto k = 4.0 * random_matrix<k_type>(seed + 1000);
    const auto v = random_matrix<v_type>(seed + 2000);
    const auto g = random_matrix<g_type>(seed + 3000);
    const auto grad = ctattn::attention_backward(opaque(q), opaque(k), opaque(v), opaque(g));
    CHECK(worst_finite_difference_error(q, grad.queries, [&](const q_type& x) { return attention_loss(x, k, v, g); }) <=
          1e-8);
    CHECK(worst_finite_difference_error(k, grad.keys, [&](const k_type& x) { return attention_loss(q, x, v, g); }) <=
          1e-8);
    CHECK(worst_finite_difference_error(v, grad.values, [&](const v_type& x) { return attention_loss(q, k, x, g); }) <=
          1e-8);
  }
}

TEST_CASE("the softmax backward pass is the upstream row times the Jacobian", "[gradient][softmax]") {
  using m_type = ctattn::matrix<double, 4, 6>;
  const auto logits = 6.0 * random_matrix<m_type>(31);
  const auto upstream = random_matrix<m_type>(32);
  m_type weights{};
  for (std::size_t i = 0; i < 4; ++i) {
    ctattn::matrix<double, 1, 6> z{};
    for (std::size_t j = 0; j < 6; ++j) z(0, j) = logits(i, j);
    const auto j_i = ctattn::softmax_jacobian_from_logits(z);
    double total = 0;
    for (std::size_t j = 0; j < 6; ++j) total += std::exp(z(0, j));
    for (std::size_t j = 0; j < 6; ++j) weights(i, j) = std::exp(z(0, j)) / total;
    const auto backward = ctattn::softmax_rows_backward(opaque(weights), opaque(upstream));
    for (std::size_t c = 0; c < 6; ++c) {
      double expected = 0;
      for (std::size_t r = 0; r < 6; ++r) expected += upstream(i, r) * j_i(r, c);
      CHECK(std::fabs(backward(i, c) - expected) <= 1e-15);
    }
  }
}

TEST_CASE("the backward pass in blocks of query rows has the bits of the constant-evaluated one", "[gradient]") {
  // 37 queries: two blocks of 16 and a rest of 5, each adding its terms of dK and dV in row order.
  static constexpr auto q = random_matrix<ctattn::matrix<float, 37, 12>>(91);
  static constexpr auto k = random_matrix<ctattn::matrix<float, 17, 12>>(92);
  static constexpr auto v = random_matrix<ctattn::matrix<float, 17, 5>>(93);
  static constexpr auto g = random_matrix<ctattn::matrix<float, 37, 5>>(94);
  static constexpr auto constant = ctattn::attention_backward(q, k, v, g);
  const auto grad = ctattn::attention_backward(opaque(q), opaque(k), opaque(v), opaque(g));
  CHECK(bit_identical(grad.queries, constant.queries));
  CHECK(bit_identical(grad.keys, constant.keys));
  CHECK(bit_identical(grad.values, constant.values));
}
