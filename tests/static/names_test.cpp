// Static tests of names that survive a pipeline, and of the rules as concepts: a head split has a named head axis
// and concatenating the heads gives d_model back; multi-head attention, embeddings and imported tables keep the
// axes the user declared; every public concept is the predicate of its rules.
#include <ctattn/ctattn.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace {

struct vocab : ctattn::dimension<"vocab"> {};
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

template <typename A, typename B>
inline constexpr bool same = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;

// The head split names its blocks after the axis it splits, and the join gives that axis back.
constexpr ctattn::matrix<float, seq{2}, d_model{8}> x{{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15, 16}}};
constexpr auto heads = ctattn::split_columns<4>(x);
static_assert(same<decltype(heads[0]), ctattn::matrix<float, seq{2}, ctattn::part_of<d_model, 4>{2}>>);
static_assert(ctattn::part_of<d_model, 4>::name.view() == "d_model/4");
static_assert(ctattn::part_of<d_model, 16>::name.view() == "d_model/16");
static_assert(ctattn::part_of<d_model, 100>::name.view() == "d_model/100");
static_assert(heads[3](1, 1) == 16.0f);
constexpr auto joined = ctattn::concat_columns(heads);
static_assert(same<decltype(joined), decltype(x)> && joined == x);
// A head of one split is not a head of another, and not d_model itself.
static_assert(!ctattn::SameShape<ctattn::matrix<float, 2, ctattn::part_of<d_model, 4>{2}>,
                                 ctattn::matrix<float, 2, ctattn::part_of<d_model, 2>{2}>>);
static_assert(!ctattn::Multipliable<ctattn::matrix<float, 2, ctattn::part_of<d_model, 4>{2}>,
                                    ctattn::matrix<float, d_model{2}, 3>>);
// Plain sizes split into plain blocks, joined into a plain size; an explicit block name still wins.
constexpr ctattn::matrix<float, 2, 8> plain{};
static_assert(same<decltype(ctattn::split_columns<2>(plain)[0]), ctattn::matrix<float, 2, 4>>);
static_assert(same<decltype(ctattn::concat_columns(ctattn::split_columns<2>(plain))), decltype(plain)>);
static_assert(same<decltype(ctattn::split_columns<4, d_k{2}>(x)[0]), ctattn::matrix<float, seq{2}, d_k{2}>>);
// Parts of another count are not joined back into the whole (a plain size instead).
using head_type = std::remove_cvref_t<decltype(heads[0])>;
static_assert(same<decltype(ctattn::concat_columns(std::array<head_type, 2>{heads[0], heads[1]})),
                   ctattn::matrix<float, seq{2}, 4>>);

// Embeddings carry the axes the user declared: the table's width, the rows named on request.
constexpr ctattn::matrix<float, vocab{3}, d_model{8}> table{};
constexpr std::array<int, 2> ids{2, 0};
static_assert(same<decltype(ctattn::embed_tokens(table, ids)), ctattn::matrix<float, 2, d_model{8}>>);
static_assert(same<decltype(ctattn::embed_tokens<seq{2}>(table, ids)), decltype(x)>);
static_assert(same<decltype(ctattn::embed_tokens<ids, seq{2}>(table)), decltype(x)>);
constexpr float raw[2][8]{};
static_assert(same<decltype(ctattn::from_array<seq{2}, d_model{8}>(raw)), decltype(x)>);

// Multi-head attention keeps d_model from input to output.
constexpr ctattn::multi_head_attention_weights<float, 4, d_model{8}> mha{};
static_assert(same<decltype(ctattn::multi_head_attention(x, x, x, mha)), decltype(x)>);

// Every public concept is the predicate of the rules its operation checks.
using q_type = ctattn::matrix<float, seq{2}, d_k{4}>;
using v_type = ctattn::matrix<float, seq{2}, d_v{4}>;
static_assert(ctattn::rules_hold<ctattn::detail::multiply_rules<q_type, ctattn::matrix<float, d_k{4}, seq{2}>>>);
static_assert(!ctattn::rules_hold<ctattn::detail::multiply_rules<q_type, ctattn::matrix<float, d_v{4}, seq{2}>>>);
static_assert(ctattn::AttentionCompatible<q_type, q_type, v_type>);
static_assert(!ctattn::AttentionCompatible<q_type, v_type, v_type>);                            // d_k against d_v
static_assert(!ctattn::AttentionCompatible<q_type, q_type, ctattn::matrix<float, 3, d_v{4}>>);  // n_kv 2 vs 3
static_assert(ctattn::AttentionCompatible<q_type, q_type, v_type, ctattn::boolean_mask<2, 2>>);
static_assert(!ctattn::AttentionCompatible<q_type, q_type, v_type, ctattn::boolean_mask<2, 3>>);
static_assert(ctattn::AttentionCompatible<q_type, q_type, v_type, ctattn::sliding_window_mask<1>>);  // square
static_assert(!ctattn::AttentionCompatible<ctattn::matrix<float, 3, d_k{4}>, q_type, v_type,
                                           ctattn::sliding_window_mask<1>>);  // 3 queries, 2 keys
static_assert(ctattn::Projectable<decltype(x), ctattn::linear<float, d_model{8}, d_k{4}>>);
static_assert(!ctattn::Projectable<decltype(x), ctattn::linear<float, d_k{8}, d_k{4}>>);
static_assert(!ctattn::Projectable<decltype(x), ctattn::linear<double, d_model{8}, d_k{4}>>);

// One shape is one type, however its extents are spelled: every template taking an extent normalizes it (the
// weights from_torch_multihead returns, with std::size_t extents, are the type a user declares with 32).
static_assert(std::is_same_v<ctattn::multi_head_attention_weights<float, 4, 32, ctattn::out_by_in, true>,
                             ctattn::multi_head_attention_weights<float, 4, std::size_t{32}, ctattn::out_by_in, true>>);
static_assert(std::is_same_v<ctattn::multi_head_attention_weights<float, 4, 32>,
                             ctattn::multi_head_attention_weights<float, 4, 32u, ctattn::in_by_out, false, 32l, 32>>);
static_assert(std::is_same_v<ctattn::grouped_query_attention_weights<float, 4, 2, 16, 4>,
                             ctattn::grouped_query_attention_weights<float, 4, 2, std::size_t{16}, 4>>);
static_assert(std::is_same_v<ctattn::linear<float, 16, 24>, ctattn::linear<float, 16u, std::size_t{24}>>);
static_assert(std::is_same_v<ctattn::attention_head<float, 16, 24, 28>, ctattn::attention_head<float, 16u, 24l, 28ul>>);
static_assert(std::is_same_v<ctattn::attention_workspace<float, 6, 6, 24, 28>,
                             ctattn::attention_workspace<float, 6u, 6u, 24u, 28u>>);
static_assert(std::is_same_v<ctattn::boolean_mask<2, 3>, ctattn::boolean_mask<2u, std::size_t{3}>>);
static_assert(std::is_same_v<ctattn::key_padding_flags<7>, ctattn::key_padding_flags<7u>>);

// One element-type concept: float and double only.
static_assert(ctattn::Scalar<float> && ctattn::Scalar<double>);
static_assert(!ctattn::Scalar<long double> && !ctattn::Scalar<int> && !ctattn::Scalar<const float>);

// A rule list stops at its first broken rule: the rules after it are not even evaluated.
template <typename T>
struct never_evaluated {
  static_assert(sizeof(T) == 0, "a rule after a broken one was evaluated");
  static constexpr bool holds = true;
  static constexpr bool check() noexcept { return holds; }
};
static_assert(
    !ctattn::rules_hold<
        ctattn::rule_list<ctattn::shape_error::count_must_be_positive<ctattn::op::split_columns, ctattn::count<0>>,
                          never_evaluated<int>>>);
static_assert(std::is_same_v<
              ctattn::detail::first_broken<ctattn::rule_list<
                  ctattn::rule_list<>, ctattn::shape_error::element_types_must_match<ctattn::op::add, float, float>,
                  ctattn::rule_list<ctattn::shape_error::element_types_must_match<ctattn::op::add, float, double>>>>,
              ctattn::shape_error::element_types_must_match<ctattn::op::add, float, double>>);

}  // namespace
