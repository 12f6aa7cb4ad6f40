// relayout: a projection, or multi-head weights, stored in the other layout by the compiler, with the same results.
#include "fixtures/attention/multihead.hpp"
#include "support/test_data.hpp"

#include <ctattn/attention/multi_head.hpp>

namespace {

namespace fx = ctattn_fixtures::multihead::self_attention;

constexpr auto torch_linear =
    ctattn::linear<float, 5, 3, ctattn::out_by_in, true>{ctattn_test::random_matrix<ctattn::matrix<float, 3, 5>>(3),
                                                         ctattn_test::random_matrix<ctattn::matrix<float, 1, 3>>(4)};
constexpr auto text_linear = ctattn::relayout<ctattn::in_by_out>(torch_linear);
static_assert(std::is_same_v<decltype(text_linear)::layout, ctattn::in_by_out>);
static_assert(text_linear.weight(4, 2) == torch_linear.weight(2, 4));
static_assert(text_linear.bias == torch_linear.bias);
static_assert(ctattn::relayout<ctattn::out_by_in>(text_linear) == torch_linear);
static_assert(ctattn::relayout<ctattn::out_by_in>(torch_linear) == torch_linear);

// Each output sums the same products in the same order in either layout: the same bits.
constexpr auto x = ctattn_test::random_matrix<ctattn::matrix<float, 4, 5>>(5);
static_assert(ctattn::project(x, text_linear) == ctattn::project(x, torch_linear));

constexpr auto torch_weights =
    ctattn::from_torch_multihead<2>(fx::in_proj_weight, fx::in_proj_bias, fx::out_proj_weight, fx::out_proj_bias);
constexpr auto text_weights = ctattn::relayout<ctattn::in_by_out>(torch_weights);
static_assert(std::is_same_v<decltype(text_weights),
                             const ctattn::multi_head_attention_weights<float, 2, 8, ctattn::in_by_out, true>>);
constexpr auto tokens = ctattn_test::to_matrix<float>(fx::x);
static_assert(ctattn::multi_head_attention(tokens, tokens, tokens, text_weights, ctattn::causal) ==
              ctattn::multi_head_attention(tokens, tokens, tokens, torch_weights, ctattn::causal));

}  // namespace
