// ctattn's first example: attention scores Q K^T and one attention call, with named dimensions, checked and
// evaluated by the compiler, then computed again at run time with the same bits.
#include <ctattn/ctattn.hpp>
#include <ctattn/host/print.hpp>

#include <iostream>

// Name the axes once. d_k and d_v have the same size here, but they are different axes.
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// Three tokens of width 4, and the query, key and value projections.
constexpr ctattn::matrix<float, seq{3}, d_model{4}> x{{
    {1.0f, 0.0f, 1.0f, 0.0f},
    {0.0f, 2.0f, 0.0f, 2.0f},
    {1.0f, 1.0f, 1.0f, 1.0f},
}};
constexpr ctattn::matrix<float, d_model{4}, d_k{2}> w_q{{{1, 0}, {0, 1}, {1, 0}, {0, 1}}};
constexpr ctattn::matrix<float, d_model{4}, d_k{2}> w_k{{{1, 0}, {0, 1}, {0, 0}, {1, 0}}};
constexpr ctattn::matrix<float, d_model{4}, d_v{2}> w_v{{{0, 1}, {1, 0}, {0, 1}, {1, 0}}};

constexpr auto q = x * w_q;  // seq x d_k, computed by the compiler
constexpr auto k = x * w_k;  // seq x d_k
constexpr auto v = x * w_v;  // seq x d_v

// The scores Q K^T contract d_k with d_k: seq x seq, one row per query, one column per key.
constexpr auto scores = q * ctattn::transpose(k);
static_assert(scores(1, 2) == 4.0f);  // query 1 is (0, 4), key 2 is (2, 1)

// Taking the values for the keys, Q V^T, would contract d_k with d_v. Both have size 2, so plain sizes cannot
// tell this mistake from Q K^T; named dimensions can. Uncomment to see the compiler refuse:
//
//   constexpr auto wrong = q * ctattn::transpose(v);
//
// GCC 12:   error: static assertion failed: ctattn: in a product a * b the columns of a must match the rows of
//           b (equal sizes, and equal names when both are named); transpose an operand, or relabel ...
//           note: 'ctattn::shape_error::inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<d_k, 2>,
//           ctattn::dim<d_v, 2> >::holds' evaluates to false
// Clang 14: error: static_assert failed due to requirement 'holds' "ctattn: in a product a * b the columns ..."
//           note: in instantiation of member function 'ctattn::shape_error::inner_dimensions_must_match<
//           ctattn::op::multiply, ctattn::dim<d_k, 2>, ctattn::dim<d_v, 2>>::check' requested here
// (tests/compile_fail/multiply_named_inner_mismatch.cpp checks this message on every build.)

// The whole of attention, softmax(Q K^T / sqrt(d_k)) V: seq x d_v, also computed by the compiler.
constexpr auto context = ctattn::scaled_dot_product_attention(q, k, v);

int main() {
  // The same steps at run time give the same bits as the compile-time ones (exact arithmetic: the examples build
  // with CTATTN_EXACT_ARITHMETIC=1; without it, a SIMD target computes within docs/kernels.md's bounds).
  ctattn::matrix<float, seq{3}, d_model{4}> x_runtime = x;
  const auto q_runtime = x_runtime * w_q;
  const auto k_runtime = x_runtime * w_k;
  const auto scores_runtime = q_runtime * ctattn::transpose(k_runtime);
  const auto context_runtime = ctattn::scaled_dot_product_attention(q_runtime, k_runtime, x_runtime * w_v);
  std::cout << "scores Q K^T (seq x seq), computed at run time:\n" << scores_runtime << '\n';
  std::cout << "attention softmax(Q K^T / sqrt(d_k)) V (seq x d_v), computed at compile time:\n" << context << '\n';
  const bool same = scores_runtime == scores && context_runtime == context;
  std::cout << (same ? "run time and compile time agree\n" : "MISMATCH between run time and compile time\n");
  return same ? 0 : 1;
}
