// Compile-time benchmark: the worked example with 3 wide heads, checked against PyTorch inside static_assert.
// Run by benchmarks/compile_time_attention.sh.
#include "support/multihead_cases.hpp"

namespace {
namespace cases = ctattn_test::multihead_cases;
constexpr auto x = ctattn::from_array(cases::three::x);
constexpr auto concat = ctattn::wide_multi_head_attention(x, x, cases::three_heads());
static_assert(ctattn::approx_equal(concat, ctattn::from_array(cases::three::concat), 1e-6f, 1e-6f));
}  // namespace

int main() { return concat(0, 0) > 1e6f ? 1 : 0; }
