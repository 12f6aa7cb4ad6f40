// The reference text's worked example as ctattn values, shared by the examples: the axes, the embedded sentence
// "Life is short, eat dessert first" (6 x 16) and the attention head (d_q = d_k = 24, d_v = 28). The inputs are
// torch's values, read from the committed PyTorch fixture that the tests and the firmware images use too.
#ifndef CTATTN_EXAMPLES_WORKED_EXAMPLE_MODEL_HPP
#define CTATTN_EXAMPLES_WORKED_EXAMPLE_MODEL_HPP

#include <ctattn/ctattn.hpp>

#include "fixtures/attention/worked_example.hpp"

namespace data = ctattn_fixtures::worked_example;

// The axes of the example. d_k and d_v are different axes even where their sizes would agree.
struct vocab : ctattn::dimension<"vocab"> {};
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// Step 1: the sentence as token ids, then one embedding row per token: X, the embedded sentence, is
// seq x d_model (6 x 16).
constexpr auto embedding_table = ctattn::from_array<vocab{6}, d_model{16}>(data::embedding_table);
constexpr auto embedded_sentence = ctattn::embed_tokens<seq{6}>(embedding_table, data::token_ids);

// Step 2: the projections. torch.rand(24, 16) is d_k x d_model (out x in); `out_by_in` says so, so that
// q_i = W_query x_i exactly as in the text, and no weight is silently transposed.
using head_type = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
constexpr head_type head{
    .query = {ctattn::from_array<d_k{24}, d_model{16}>(data::w_query)},
    .key = {ctattn::from_array<d_k{24}, d_model{16}>(data::w_key)},
    .value = {ctattn::from_array<d_v{28}, d_model{16}>(data::w_value)},
};

#endif  // CTATTN_EXAMPLES_WORKED_EXAMPLE_MODEL_HPP
