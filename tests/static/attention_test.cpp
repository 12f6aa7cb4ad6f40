// Static tests of scaled dot-product attention: every PyTorch fixture case (every mask kind, self and cross
// attention), evaluated by the compiler, within the stated tolerances.
#include "support/attention_cases.hpp"

namespace cases = ctattn_test::attention_cases;

// Each case of the list a constant expression of its own (tests/support/case_list.hpp).
static_assert(ctattn_test::every_constant_case_passes<cases::every_case>());

// The mask as the reference text's matrix M: attention with a mask equals attention with M added to the scores.
#include <ctattn/attention/softmax.hpp>
#include <ctattn/matrix/multiply.hpp>
#include <ctattn/matrix/transpose.hpp>

#include <limits>

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
static_assert(ctattn::mask_matrix<float, 3, 3>(ctattn::causal) ==
              ctattn::matrix<float, 3, 3>{{{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}}});
static_assert(ctattn::mask_matrix<float, 2, 4>(ctattn::causal_bottom_right) ==
              ctattn::matrix<float, 2, 4>{{{0, 0, 0, -inf}, {0, 0, 0, 0}}});
static_assert(ctattn::mask_matrix<float, 4, 4>(ctattn::sliding_window<1>) ==
              ctattn::matrix<float, 4, 4>{{{0, 0, -inf, -inf}, {0, 0, 0, -inf}, {-inf, 0, 0, 0}, {-inf, -inf, 0, 0}}});
static_assert(ctattn::mask_matrix<float, 1, 3>(ctattn::key_padding_length{2}) ==
              ctattn::matrix<float, 1, 3>{{{0, 0, -inf}}});

namespace fx = ctattn_fixtures::sdpa::causal_square;
constexpr bool causal_equals_adding_m() {
  const auto q = ctattn::from_array(fx::q);
  const auto k = ctattn::from_array(fx::k);
  const auto v = ctattn::from_array(fx::v);
  const auto m = ctattn::mask_matrix<float, 5, 5>(ctattn::causal);
  const auto via_m = ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(m));
  return via_m == ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
}
static_assert(causal_equals_adding_m());
}  // namespace
