// Compile-time benchmark: an N x N by N x N product evaluated inside static_assert (N from -DCTATTN_N).
// Run by benchmarks/compile_time_product.sh, which times the compiler and reads its peak memory.
#include <ctattn/matrix/multiply.hpp>

#include "compile_time_inputs.hpp"

#include <cstddef>
#include <cstdint>

#ifndef CTATTN_N
#define CTATTN_N 64
#endif

namespace {

constexpr std::size_t n = CTATTN_N;
using square = ctattn::matrix<float, n, n>;

constexpr square a = lcg_filled<square>(1);
constexpr square b = lcg_filled<square>(2);
constexpr square c = ctattn::multiply(a, b);

// The identity a (b e_j) = (a b) e_j for one column j, summed in the same order, checks the whole product ran.
constexpr bool column_checks(std::size_t j) {
  for (std::size_t i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (std::size_t k = 0; k < n; ++k) acc += a.elements[i][k] * b.elements[k][j];
    if (acc != c.elements[i][j]) return false;
  }
  return true;
}
static_assert(column_checks(0) && column_checks(n - 1));

}  // namespace

int main() { return static_cast<int>(c.elements[0][0] > 1e9f); }
