// Compile-time benchmark: single-head self-attention softmax(Q K^T / sqrt(d)) V with n tokens of width d
// (-DCTATTN_N, -DCTATTN_D), inputs from an LCG, evaluated inside static_assert: every row of the attention weights
// must sum to 1 within n float ulp. Run by benchmarks/compile_time_attention.sh.
#include <ctattn/attention/scaled_dot_product.hpp>

#include "compile_time_inputs.hpp"

#include <cstddef>
#include <cstdint>

#ifndef CTATTN_N
#define CTATTN_N 64
#endif
#ifndef CTATTN_D
#define CTATTN_D 64
#endif

namespace {

constexpr std::size_t n = CTATTN_N;
constexpr std::size_t d = CTATTN_D;
using tokens = ctattn::matrix<float, n, d>;

constexpr tokens q = lcg_filled<tokens>(1);
constexpr tokens k = lcg_filled<tokens>(2);
constexpr tokens v = lcg_filled<tokens>(3);
constexpr auto result = ctattn::scaled_dot_product_attention(q, k, v, ctattn::with_weights);

constexpr bool rows_sum_to_one() {
  for (std::size_t i = 0; i < n; ++i) {
    float total = 0.0f;
    for (std::size_t j = 0; j < n; ++j) total += result.weights.elements[i][j];
    const float error = total > 1.0f ? total - 1.0f : 1.0f - total;
    if (error > static_cast<float>(n) * 0x1p-23f) return false;
  }
  return true;
}
static_assert(rows_sum_to_one());

}  // namespace

int main() { return result.output.elements[0][0] > 1e6f ? 1 : 0; }
