// Run-time tests of batches: attention over B x h x n x d against PyTorch, and the same bits as the compiler's.
#include "catch.hpp"
#include "support/batched_cases.hpp"

namespace {
namespace batched = ctattn_test::batched;
}  // namespace

TEST_CASE("attention over a batch with heads matches PyTorch at run time", "[batch]") {
  const auto c = batched::check();
  CHECK(c.float_output);
  CHECK(c.double_output);
  CHECK(c.float_causal);
  CHECK(c.double_causal);
  CHECK(c.items_are_two_dimensional_attention);
}

TEST_CASE("batched attention computed at run time has the compile-time bits", "[batch]") {
  static constexpr auto at_compile_time = batched::run<float>(batched::attend_with<ctattn::causal_mask>{});
  const auto at_run_time = batched::run<float>(batched::attend_with<ctattn::causal_mask>{});
  CHECK(at_run_time == at_compile_time);
}
