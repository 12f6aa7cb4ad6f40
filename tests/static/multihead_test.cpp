// Static tests of multi-head attention: PyTorch's nn.MultiheadAttention (biases, kdim / vdim, causal),
// grouped-query and multi-query attention, and the worked example's 3 wide heads, evaluated by the compiler.
#include "support/multihead_cases.hpp"

namespace cases = ctattn_test::multihead_cases;

// Each case of the list a constant expression of its own (tests/support/case_list.hpp).
static_assert(ctattn_test::every_constant_case_passes<cases::every_case>());

// The head split is a type-level fact: 2 heads of 4 columns, 4 query heads sharing 2 key/value heads.
static_assert(ctattn::multi_head_attention_weights<float, 2, std::size_t{8}>::head_dim == 4);
static_assert(ctattn::grouped_query_attention_weights<float, 4, 2, std::size_t{16}, 4>::key_value_heads == 2);
