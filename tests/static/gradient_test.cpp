// Static tests of the gradients (ctattn/attention/gradient.hpp), evaluated by the compiler against the PyTorch
// autograd fixtures in tests/fixtures/attention/gradients.hpp.
#include "support/test_data.hpp"

#include <ctattn/attention/gradient.hpp>
#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/reduce.hpp>
#include <ctattn/matrix/transpose.hpp>
#include <ctattn/matrix/with_extents.hpp>

#include "fixtures/attention/gradients.hpp"

#include <cstddef>
#include <type_traits>

namespace {

using ctattn_test::to_matrix;
using ctattn_test::to_row;

namespace jac = ctattn_fixtures::gradients::softmax_jacobian;
namespace att = ctattn_fixtures::gradients::attention;

struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

template <typename T>
constexpr T magnitude(T x) {
  return x < 0 ? -x : x;
}

// --- the softmax Jacobian ---------------------------------------------------------------------------------
// From the float32 probabilities s: each entry is s_i delta_ik - s_i s_k with two roundings, so it is within
// 2^-24 (one half-ulp of 1 for the diagonal's s_i, one of the product) of the float64 Jacobian: tolerance 6e-8
// absolute (entries < 0.25).
constexpr auto s_float = to_row<float>(jac::s);
constexpr auto jacobian_float = ctattn::softmax_jacobian(s_float);
static_assert(ctattn::approx_equal(jacobian_float, to_matrix<float>(jac::jacobian), 6e-8f));
// In double, from the float64 probabilities: within 1e-16 of the float64 reference.
constexpr auto jacobian_double = ctattn::softmax_jacobian(to_row<double>(jac::s_f64));
static_assert(ctattn::approx_equal(jacobian_double, to_matrix<double>(jac::jacobian_f64), 1e-16));
// From the logits z, the softmax computed by ctattn (stable, with ctattn::math::exp).
static_assert(ctattn::approx_equal(ctattn::softmax_jacobian_from_logits(to_row<float>(jac::z)),
                                   to_matrix<float>(jac::jacobian), 1.2e-7f));
static_assert(ctattn::approx_equal(ctattn::softmax_jacobian_from_logits(to_row<double>(jac::z)),
                                   to_matrix<double>(jac::jacobian_f64), 2e-16));
// Symmetric exactly (s_i s_k == s_k s_i); every row sums to 0 up to rounding (5 terms of at most 0.25).
static_assert(ctattn::transpose(jacobian_float) == jacobian_float);
static_assert(ctattn::approx_equal(ctattn::row_sum(jacobian_double), ctattn::matrix<double, 5, 1>{}, 2e-16));
static_assert(ctattn::approx_equal(ctattn::row_sum(jacobian_float), ctattn::matrix<float, 5, 1>{}, 1e-7f));
// Named extents: the Jacobian is N x N in the row's column extent.
static_assert(
    std::is_same_v<std::remove_cv_t<decltype(ctattn::softmax_jacobian(ctattn::matrix<float, 1, seq_kv{5}>{}))>,
                   ctattn::matrix<float, seq_kv{5}, seq_kv{5}>>);
// Hard rows: a float softmax of [1000, 1001, 999] stays finite.
static_assert([] {
  constexpr auto j = ctattn::softmax_jacobian_from_logits(ctattn::matrix<float, 1, 3>{{{1000, 1001, 999}}});
  return j(1, 1) > 0.222f && j(1, 1) < 0.223f && j(0, 1) < -0.162f && j(0, 1) > -0.163f;  // 0.2227, -0.1628
}());

// --- the softmax backward pass ----------------------------------------------------------------------------
// For one row it is the row vector times the Jacobian: u J(s).
constexpr ctattn::matrix<double, 1, 5> u{{{0.5, -1.0, 0.25, 2.0, -0.75}}};
static_assert([] {
  const auto j = ctattn::softmax_jacobian(to_row<double>(jac::s_f64));
  const auto backward = ctattn::softmax_rows_backward(to_row<double>(jac::s_f64), u);
  for (std::size_t k = 0; k < 5; ++k) {
    double expected = 0;
    for (std::size_t i = 0; i < 5; ++i) expected += u(0, i) * j(i, k);
    if (magnitude(backward(0, k) - expected) > 1e-15) return false;
  }
  return true;
}());

// --- single-head attention backward -------------------------------------------------------------------------
constexpr auto q = to_matrix<float>(att::q);
constexpr auto k = to_matrix<float>(att::k);
constexpr auto v = to_matrix<float>(att::v);
constexpr auto g = to_matrix<float>(att::upstream);
constexpr auto grad = ctattn::attention_backward(q, k, v, g);
// float32 against PyTorch autograd in float64 (rounded to float32): |dQ|, |dK|, |dV| < 1.5; the float
// computation takes a few dozen roundings per entry. Tolerance 4e-7 absolute (measured: 1.6e-7).
static_assert(ctattn::approx_equal(grad.queries, to_matrix<float>(att::dq), 4e-7f));
static_assert(ctattn::approx_equal(grad.keys, to_matrix<float>(att::dk), 4e-7f));
static_assert(ctattn::approx_equal(grad.values, to_matrix<float>(att::dv), 4e-7f));
// double against the float64 values: tolerance 1e-15 absolute (measured: 2.2e-16).
constexpr auto grad_double = ctattn::attention_backward(to_matrix<double>(att::q), to_matrix<double>(att::k),
                                                        to_matrix<double>(att::v), to_matrix<double>(att::upstream));
static_assert(ctattn::approx_equal(grad_double.queries, to_matrix<double>(att::dq_f64), 1e-15));
static_assert(ctattn::approx_equal(grad_double.keys, to_matrix<double>(att::dk_f64), 1e-15));
static_assert(ctattn::approx_equal(grad_double.values, to_matrix<double>(att::dv_f64), 1e-15));

// The backward pass recomputes the forward pass's weights bit for bit: dV = P^T G summed in the same order as
// the library's product, with P from ctattn::scaled_dot_product_attention(..., ctattn::with_weights).
constexpr auto forward = ctattn::scaled_dot_product_attention(q, k, v, ctattn::with_weights);
static_assert(grad.values == ctattn::transpose(forward.weights) * g);
static_assert(ctattn::approx_equal(forward.output, to_matrix<float>(att::output), 2e-7f));

// The gradients keep the inputs' types, named extents included; plain sizes match named ones.
constexpr auto q_named = ctattn::with_extents<seq_q{4}, d_k{6}>(q);
constexpr auto k_named = ctattn::with_extents<seq_kv{5}, d_k{6}>(k);
constexpr auto v_named = ctattn::with_extents<seq_kv{5}, d_v{3}>(v);
constexpr auto grad_named = ctattn::attention_backward(q_named, k_named, v_named, g);
static_assert(std::is_same_v<std::remove_cv_t<decltype(grad_named)>,
                             ctattn::attention_gradients<ctattn::matrix<float, seq_q{4}, d_k{6}>,
                                                         ctattn::matrix<float, seq_kv{5}, d_k{6}>,
                                                         ctattn::matrix<float, seq_kv{5}, d_v{3}>>>);
static_assert(grad_named.queries.elements[3][5] == grad.queries(3, 5) && grad_named.values(4, 2) == grad.values(4, 2));

// The softmax is shift-invariant along each row, so every row of dS sums to 0; hence
// sum_j dK(j, c) = sum_i (sum_j dS(i, j)) Q(i, c) / sqrt(d_k) = 0: moving all keys together changes nothing.
static_assert([] {
  for (std::size_t c = 0; c < 6; ++c) {
    double total = 0;
    for (std::size_t j = 0; j < 5; ++j) total += grad_double.keys(j, c);
    if (magnitude(total) > 1e-15) return false;
  }
  return true;
}());
// With an upstream gradient of zero, every gradient is zero.
static_assert(ctattn::attention_backward(q, k, v, decltype(g){}).queries == decltype(q){});

}  // namespace
