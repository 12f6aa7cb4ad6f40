// Static tests of scaled dot-product attention: every PyTorch fixture case (every mask kind, self and cross
// attention), evaluated by the compiler, within the stated tolerances.
#include "support/attention_cases.hpp"

namespace cases = ctattn_test::attention_cases;

static_assert(cases::self_attention().all());
static_assert(cases::cross_attention().all());
static_assert(cases::causal_square().all());
static_assert(cases::causal_wide_top_left().all());
static_assert(cases::causal_wide_bottom_right().all());
static_assert(cases::causal_tall_top_left().all());
static_assert(cases::causal_tall_bottom_right().all());
static_assert(cases::key_padding_length().all());
static_assert(cases::key_padding_flags().all());
static_assert(cases::sliding_window_r1().all());
static_assert(cases::sliding_window_r2().all());
static_assert(cases::boolean_mask().all());
static_assert(cases::additive_bias().all());
static_assert(cases::fully_masked_row().all());
