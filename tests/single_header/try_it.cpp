// Compile with -std=c++20, and -ffp-contract=off for run-time results that equal compile-time ones bit for bit.
#include "ctattn.hpp"

#include <cstdio>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

constexpr ctattn::matrix<float, seq{3}, d_model{4}> x{{
    {1.0f, 0.0f, 1.0f, 0.0f},
    {0.0f, 2.0f, 0.0f, 2.0f},
    {1.0f, 1.0f, 1.0f, 1.0f},
}};
constexpr ctattn::matrix<float, d_model{4}, d_k{2}> w_q{{{1, 0}, {0, 1}, {1, 0}, {0, 1}}};
constexpr ctattn::matrix<float, d_model{4}, d_k{2}> w_k{{{1, 0}, {0, 1}, {0, 0}, {1, 0}}};
constexpr ctattn::matrix<float, d_model{4}, d_v{2}> w_v{{{0, 1}, {1, 0}, {0, 1}, {1, 0}}};

constexpr auto q = x * w_q;
constexpr auto k = x * w_k;
constexpr auto v = x * w_v;
static_assert((q * ctattn::transpose(k))(1, 2) == 4.0f);  // a score of Q K^T, computed by the compiler
// constexpr auto wrong = q * ctattn::transpose(v);       // d_k against d_v: uncomment to see the error

int main() {
  constexpr auto context = ctattn::scaled_dot_product_attention(q, k, v);  // softmax(Q K^T / sqrt(d_k)) V
  for (std::size_t i = 0; i < context.rows; ++i) {
    std::printf("%.4f %.4f\n", static_cast<double>(context(i, 0)), static_cast<double>(context(i, 1)));
  }
}
