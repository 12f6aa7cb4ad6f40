// ctattn's first example: a projection X W_Q with named dimensions, checked by the compiler, evaluated at
// compile time, and run again at run time with the same result.
#include <ctattn/ctattn.hpp>
#include <ctattn/host/print.hpp>

#include <iostream>

// Name the axes once. d_k and d_v have the same size here, but they are different axes.
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// Three tokens of width 4, and the query and value projections.
constexpr ctattn::matrix<float, seq{3}, d_model{4}> x{{
    {1.0f, 0.0f, 1.0f, 0.0f},
    {0.0f, 2.0f, 0.0f, 2.0f},
    {1.0f, 1.0f, 1.0f, 1.0f},
}};
constexpr ctattn::matrix<float, d_model{4}, d_k{2}> w_q{{{1, 0}, {0, 1}, {1, 0}, {0, 1}}};
constexpr ctattn::matrix<float, d_model{4}, d_v{2}> w_v{{{0, 1}, {1, 0}, {0, 1}, {1, 0}}};

// Q = X W_Q is a seq x d_k matrix, computed by the compiler.
constexpr auto q = x * w_q;
static_assert(q(1, 1) == 4.0f);
constexpr auto v = x * w_v;

// Q K^T contracts d_k against d_k: fine. Q V^T would contract d_k against d_v: both have size 2, so plain
// sizes could not tell them apart, but named dimensions can. Uncomment to see the compiler refuse:
//
//   constexpr auto wrong = q * ctattn::transpose(v);
//
// GCC 12:   error: invalid application of 'sizeof' to incomplete type 'ctattn::shape_error::
//           inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<d_k, 2>, ctattn::dim<d_v, 2> >'
// Clang 14: error: implicit instantiation of undefined template 'ctattn::shape_error::
//           inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<d_k, 2>, ctattn::dim<d_v, 2>>'
// (tests/compile_fail/multiply_named_inner_mismatch.cpp checks this message on every build.)
constexpr auto scores = q * ctattn::transpose(x * w_q);

int main() {
  // The same product at run time gives the same bits as the compile-time one.
  ctattn::matrix<float, seq{3}, d_model{4}> x_runtime = x;
  const auto q_runtime = x_runtime * w_q;
  std::cout << "Q = X W_Q (seq x d_k), computed at run time:\n" << q_runtime << '\n';
  std::cout << "V = X W_V (seq x d_v), computed at compile time:\n" << v << '\n';
  std::cout << "Q Q^T (seq x seq), computed at compile time:\n" << scores << '\n';
  std::cout << (q_runtime == q ? "run time and compile time agree\n" : "MISMATCH\n");
  return q_runtime == q ? 0 : 1;
}
