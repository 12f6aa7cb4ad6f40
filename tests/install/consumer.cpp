// The smallest real use of ctattn, built by both packaging tests: a product checked at compile time and
// run at run time.
#include <ctattn/ctattn.hpp>

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};

constexpr ctattn::matrix<float, seq{2}, d_model{3}> x{{{1, 2, 3}, {4, 5, 6}}};
constexpr ctattn::matrix<float, d_model{3}, 1> w{{{1}, {0}, {-1}}};
static_assert(ctattn::multiply(x, w)(1, 0) == -2.0f);

int main() {
  auto y = ctattn::multiply(x, w);
  return (y(0, 0) == -2.0f && y(1, 0) == -2.0f) ? 0 : 1;
}
