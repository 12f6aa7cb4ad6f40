// Static tests of strict names (CTATTN_STRICT_NAMES = 1): a plain size no longer matches a named extent, while
// a pipeline whose axes are all named, from the embedding table to multi-head attention, still compiles and
// gives PyTorch's values. (This translation unit alone is built in strict mode.)
#define CTATTN_STRICT_NAMES 1
#include <ctattn/ctattn.hpp>

#include "fixtures/attention/worked_example.hpp"

namespace {

namespace fx = ctattn_fixtures::worked_example;

struct vocab : ctattn::dimension<"vocab"> {};
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// Plain against named no longer matches; named against the same name, or plain against plain, still does.
static_assert(!ctattn::extents_match(std::size_t{16}, d_model{16}));
static_assert(ctattn::extents_match(d_model{16}, d_model{16}) && ctattn::extents_match(16, 16));
static_assert(!ctattn::Multipliable<ctattn::matrix<float, 2, d_k{3}>, ctattn::matrix<float, 3, 4>>);
static_assert(ctattn::Multipliable<ctattn::matrix<float, 2, d_k{3}>, ctattn::matrix<float, d_k{3}, 4>>);
static_assert(ctattn::Multipliable<ctattn::matrix<float, 2, 3>, ctattn::matrix<float, 3, 4>>);
static_assert(!ctattn::SameShape<ctattn::matrix<float, seq{2}, 3>, ctattn::matrix<float, 2, 3>>);

// The worked example with every axis named: the embedding, the head, self-attention.
constexpr auto table = ctattn::from_array<vocab{6}, d_model{16}>(fx::embedding_table);
constexpr auto x = ctattn::embed_tokens<seq{6}>(table, fx::token_ids);
static_assert(x == ctattn::from_array<seq{6}, d_model{16}>(fx::x));
constexpr ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in> head{
    .query = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_query)},
    .key = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_key)},
    .value = {ctattn::from_array<d_v{28}, d_model{16}>(fx::w_value)},
};
constexpr auto context = ctattn::self_attention(x, head, ctattn::causal);
static_assert(ctattn::approx_equal(ctattn::self_attention(x, head), ctattn::from_array<seq{6}, d_v{28}>(fx::context),
                                   1e-5f, 1e-5f));
// Under the causal mask the first query sees only the first key, so its context is the first value row.
static_assert(ctattn::approx_equal(ctattn::row<0>(context), ctattn::row<0>(ctattn::from_array<seq{6}, d_v{28}>(fx::v)),
                                   1e-6f, 1e-6f));

// Multi-head attention keeps d_model through the head split, the concatenation and W_O.
constexpr ctattn::multi_head_attention_weights<float, 4, d_model{16}> mha{};
static_assert(std::is_same_v<std::remove_cvref_t<decltype(ctattn::multi_head_attention(x, x, x, mha))>,
                             std::remove_cvref_t<decltype(x)>>);
constexpr auto heads = ctattn::split_columns<4>(x);
static_assert(ctattn::concat_columns(heads) == x);

}  // namespace
