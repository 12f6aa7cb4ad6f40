// The machine's speed for the compile-time benchmarks: a fixed piece of constant evaluation that uses nothing of
// ctattn (a 64 x 64 by 64 x 64 float product written as three plain loops), so its time changes with the machine
// and its load, never with the library. benchmarks/compile_time_attention.sh and compile_time_product.sh time it
// with GCC before and after their measurements.
#include "compile_time_inputs.hpp"

#include <cstddef>
#include <cstdint>

namespace {

constexpr std::size_t n = 64;

struct square {
  float elements[n][n];
};

constexpr square product(const square& a, const square& b) {
  square c{};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t k = 0; k < n; ++k) acc += a.elements[i][k] * b.elements[k][j];
      c.elements[i][j] = acc;
    }
  }
  return c;
}

constexpr square c = product(lcg_filled<square>(1), lcg_filled<square>(2));
static_assert(c.elements[0][0] == c.elements[0][0]);

}  // namespace

int main() { return 0; }
