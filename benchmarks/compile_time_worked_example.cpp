// Compile-time benchmark: the reference text's worked example (6 tokens x 16, d_q = d_k = 24, d_v = 28) evaluated
// and checked against PyTorch inside static_assert. Run by benchmarks/compile_time_attention.sh.
#include "support/worked_example.hpp"

#include <ctattn/matrix/compare.hpp>

namespace {
using namespace ctattn_test::worked;
constexpr auto result = ctattn::self_attention(x, head, ctattn::with_weights);
static_assert(ctattn::approx_equal(result.output, ctattn::from_array<seq{6}, d_v{28}>(fx::context), 1e-5f, 1e-5f));
static_assert(ctattn::approx_equal(result.weights, ctattn::from_array<seq{6}, seq{6}>(fx::weights), 1e-6f, 1e-5f));
}  // namespace

int main() { return result.output(0, 0) > 1e6f ? 1 : 0; }
