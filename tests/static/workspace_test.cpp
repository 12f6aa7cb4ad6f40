// Static tests of attention into caller-provided storage (`ctattn::into(output[, workspace])`, workspaces in
// ctattn/attention/workspace.hpp) and of the footprint query (ctattn/attention/footprint.hpp): every form of a call
// gives the same bits, in constant evaluation, and the footprint's figures are the sizes of the objects it works on.
#include "support/multihead_cases.hpp"
#include "support/test_data.hpp"
#include "support/worked_example.hpp"

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/footprint.hpp>
#include <ctattn/attention/multi_head.hpp>
#include <ctattn/attention/projection.hpp>
#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/attention/workspace.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

using namespace ctattn_test::worked;

// Bit for bit: -0 differs from +0 and NaN payloads count (unlike ==).
template <typename A, typename B>
constexpr bool same_bits(const A& a, const B& b) {
  static_assert(A::rows == B::rows && A::cols == B::cols);
  using bits = std::conditional_t<sizeof(typename A::value_type) == 4, std::uint32_t, std::uint64_t>;
  for (std::size_t i = 0; i < A::rows; ++i) {
    for (std::size_t j = 0; j < A::cols; ++j) {
      if (std::bit_cast<bits>(a.elements[i][j]) != std::bit_cast<bits>(b.elements[i][j])) return false;
    }
  }
  return true;
}

using x_type = std::remove_cv_t<decltype(x)>;
using context_type = ctattn::matrix<float, seq{6}, d_v{28}>;
using workspace_type = ctattn::self_attention_workspace<x_type, head_type>;

// The workspace's members carry the operands' named dimensions: they are what `project` returns.
static_assert(std::is_same_v<workspace_type::queries_type, ctattn::matrix<float, seq{6}, d_k{24}>>);
static_assert(std::is_same_v<workspace_type::keys_type, ctattn::matrix<float, seq{6}, d_k{24}>>);
static_assert(std::is_same_v<workspace_type::values_type, ctattn::matrix<float, seq{6}, d_v{28}>>);
static_assert(std::is_same_v<workspace_type::queries_type, decltype(ctattn::project(x, head.query))>);
static_assert(ctattn::AttentionWorkspace<workspace_type>);
static_assert(ctattn::AttentionWorkspace<const workspace_type&>);
static_assert(!ctattn::AttentionWorkspace<context_type>);
static_assert(std::is_same_v<ctattn::cross_attention_workspace<x_type, x_type, head_type>, workspace_type>);

// The worked example, with and without a mask: the same bits as self_attention, and the workspace holds Q, K, V.
template <typename Mask>
constexpr bool worked_example_matches(const Mask& mask) {
  workspace_type workspace{};
  context_type context{};
  ctattn::self_attention(x, head, mask, ctattn::into(context, workspace));
  return same_bits(context, ctattn::self_attention(x, head, mask)) &&
         same_bits(workspace.queries, ctattn::project(x, head.query)) &&
         same_bits(workspace.keys, ctattn::project(x, head.key)) &&
         same_bits(workspace.values, ctattn::project(x, head.value));
}
static_assert(worked_example_matches(ctattn::no_mask));
static_assert(worked_example_matches(ctattn::causal));
static_assert(worked_example_matches(ctattn::sliding_window<1>));

// The output is overwritten, whatever it held before; the workspace's previous contents are never read.
constexpr bool overwrites_stale_storage() {
  workspace_type workspace{};
  context_type context{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 28; ++j) context(i, j) = -1.5f;
    for (std::size_t j = 0; j < 24; ++j) workspace.queries(i, j) = 7.0f;
  }
  ctattn::self_attention(x, head, ctattn::into(context, workspace));
  ctattn::self_attention(x, head, ctattn::into(context, workspace));  // twice: the same result
  return same_bits(context, ctattn::self_attention(x, head));
}
static_assert(overwrites_stale_storage());

// An unnamed output and a workspace spelled with plain sizes fit named operands of the same sizes.
constexpr bool plain_sizes_fit() {
  using plain_x = ctattn::matrix<float, 6, 16>;
  using plain_head = ctattn::attention_head<float, 16, 24, 28, ctattn::out_by_in>;
  const plain_x px = ctattn::from_array(fx::x);
  const plain_head ph{
      {ctattn::from_array(fx::w_query)}, {ctattn::from_array(fx::w_key)}, {ctattn::from_array(fx::w_value)}};
  ctattn::attention_workspace<float, 6, 6, 24, 28> workspace{};
  ctattn::matrix<float, 6, 28> context{};
  ctattn::self_attention(px, ph, ctattn::into(context, workspace));
  ctattn::matrix<float, 6, 28> named_context_as_plain{};
  workspace_type named_workspace{};
  ctattn::self_attention(x, head,
                         ctattn::into(named_context_as_plain, named_workspace));  // unnamed output, named operands
  return same_bits(context, ctattn::self_attention(x, head)) &&
         same_bits(named_context_as_plain, ctattn::self_attention(x, head));
}
static_assert(plain_sizes_fit());

// In place: the output may be the input itself when d_v = d_model (x is read before the output is written).
constexpr bool in_place() {
  using square_head = ctattn::attention_head<float, d_model{16}, d_k{24}, d_model{16}, ctattn::in_by_out, true>;
  square_head h{};
  h.query.weight = ctattn_test::random_matrix<decltype(h.query.weight)>(11);
  h.key.weight = ctattn_test::random_matrix<decltype(h.key.weight)>(12);
  h.value.weight = ctattn_test::random_matrix<decltype(h.value.weight)>(13);
  h.query.bias = ctattn_test::random_matrix<decltype(h.query.bias)>(14);
  h.key.bias = ctattn_test::random_matrix<decltype(h.key.bias)>(15);
  h.value.bias = ctattn_test::random_matrix<decltype(h.value.bias)>(16);
  auto y = x;
  ctattn::self_attention_workspace<x_type, square_head> workspace{};
  ctattn::self_attention(y, h, ctattn::causal, ctattn::into(y, workspace));
  auto z = x;
  ctattn::cross_attention_workspace<x_type, x_type, square_head> cross_workspace{};
  ctattn::cross_attention(z, x, h, ctattn::into(z, cross_workspace));
  return same_bits(y, ctattn::self_attention(x, h, ctattn::causal)) && same_bits(z, ctattn::cross_attention(x, x, h));
}
static_assert(in_place());

// Cross-attention: 4 queries against the worked example's 6 tokens, with masks of every kind of key range.
struct target : ctattn::dimension<"target"> {};
using target_type = ctattn::matrix<float, target{4}, d_model{16}>;
template <typename Mask>
constexpr bool cross_attention_matches(const Mask& mask) {
  const auto x_q = ctattn_test::random_matrix<target_type>(21);
  ctattn::cross_attention_workspace<target_type, x_type, head_type> workspace{};
  ctattn::matrix<float, target{4}, d_v{28}> context{};
  ctattn::cross_attention(x_q, x, head, mask, ctattn::into(context, workspace));
  return same_bits(context, ctattn::cross_attention(x_q, x, head, mask));
}
static_assert(cross_attention_matches(ctattn::no_mask));
static_assert(cross_attention_matches(ctattn::causal_bottom_right));
static_assert(cross_attention_matches(ctattn::key_padding_length{3}));
static_assert(cross_attention_matches(ctattn::key_padding_flags<seq{6}>{{true, false, true, true, false, true}}));

// Scaled dot-product attention on its own, float and double, including a query that sees no key.
template <typename T, typename Mask>
constexpr bool scaled_dot_product_matches(const Mask& mask) {
  const auto q = ctattn_test::random_matrix<ctattn::matrix<T, 5, 8>>(31);
  const auto k = ctattn_test::random_matrix<ctattn::matrix<T, 7, 8>>(32);
  const auto v = ctattn_test::random_matrix<ctattn::matrix<T, 7, 3>>(33);
  ctattn::matrix<T, 5, 3> output{};
  output(0, 0) = T{9};
  ctattn::scaled_dot_product_attention(q, k, v, mask, ctattn::into(output));
  return same_bits(output, ctattn::scaled_dot_product_attention(q, k, v, mask));
}
static_assert(scaled_dot_product_matches<float>(ctattn::no_mask));
static_assert(scaled_dot_product_matches<float>(ctattn::causal));
static_assert(scaled_dot_product_matches<float>(ctattn::causal_bottom_right));  // queries 0 and 1 see no key
static_assert(scaled_dot_product_matches<double>(ctattn::key_padding_length{2}));
static_assert(scaled_dot_product_matches<double>(ctattn::key_padding_length{0}));

// The worked example with 3 wide heads: the same bits as wide_multi_head_attention, one workspace for all heads.
namespace cases = ctattn_test::multihead_cases;
using wide_x = ctattn::matrix<float, 6, 16>;
template <typename Mask>
constexpr bool wide_matches(const Mask& mask) {
  const wide_x wx = ctattn::from_array(cases::three::x);
  const auto heads = cases::three_heads();
  ctattn::cross_attention_workspace<wide_x, wide_x, cases::wide_head> workspace{};
  ctattn::matrix<float, 6, 84> concat{};
  ctattn::wide_multi_head_attention(wx, wx, heads, mask, ctattn::into(concat, workspace));
  return same_bits(concat, ctattn::wide_multi_head_attention(wx, wx, heads, mask));
}
static_assert(wide_matches(ctattn::no_mask));
static_assert(wide_matches(ctattn::causal));

// The footprint of the worked example: figures in bytes, equal to the sizes of the objects.
constexpr ctattn::footprint worked = ctattn::self_attention_footprint<x_type, head_type>;
static_assert(worked.weight_bytes == sizeof(head_type) && worked.weight_bytes == (24 + 24 + 28) * 16 * 4);
static_assert(worked.input_bytes == sizeof(x_type) && worked.input_bytes == 6 * 16 * 4);
static_assert(worked.output_bytes == sizeof(context_type) && worked.output_bytes == 6 * 28 * 4);
static_assert(worked.workspace_bytes == sizeof(workspace_type) && worked.workspace_bytes == (6 * 24 * 2 + 6 * 28) * 4);
static_assert(worked.stack_bytes == 2 * 6 * sizeof(float));
static_assert(worked.activation_bytes() == 384 + 672);
static_assert(worked.ram_bytes() == 384 + 672 + 1824 + 48);
static_assert(worked.total_bytes() == 4864 + worked.ram_bytes());
static_assert(
    std::is_same_v<decltype(ctattn::self_attention_footprint<const x_type&, head_type>), const ctattn::footprint>);
static_assert(ctattn::self_attention_footprint<const x_type&, head_type> == worked);

// Biases count as weights.
using biased_head = ctattn::attention_head<double, 10, 4, 6, ctattn::out_by_in, true>;
using biased_x = ctattn::matrix<double, 3, 10>;
static_assert(ctattn::self_attention_footprint<biased_x, biased_head>.weight_bytes == sizeof(biased_head));
static_assert(sizeof(biased_head) == ((4 + 4 + 6) * 10 + 4 + 4 + 6) * sizeof(double));
static_assert(ctattn::self_attention_footprint<biased_x, biased_head>.stack_bytes == 2 * 3 * sizeof(double));

// Cross-attention: both inputs, and the kernel's row buffers have n_kv (not n_q) entries.
constexpr auto cross = ctattn::cross_attention_footprint<target_type, x_type, head_type>;
static_assert(cross.input_bytes == sizeof(target_type) + sizeof(x_type));
static_assert(cross.output_bytes == sizeof(ctattn::matrix<float, target{4}, d_v{28}>));
static_assert(cross.workspace_bytes == sizeof(ctattn::cross_attention_workspace<target_type, x_type, head_type>));
static_assert(cross.stack_bytes == 2 * 6 * sizeof(float));

// Scaled dot-product attention: no weights, no workspace.
using sq = ctattn::matrix<float, 5, 8>;
using sk = ctattn::matrix<float, 7, 8>;
using sv = ctattn::matrix<float, 7, 3>;
static_assert(ctattn::scaled_dot_product_attention_footprint<sq, sk, sv> ==
              ctattn::footprint{0, sizeof(sq) + sizeof(sk) + sizeof(sv), sizeof(ctattn::matrix<float, 5, 3>), 0,
                                2 * 7 * sizeof(float)});

// Wide multi-head attention: h heads' weights, the concatenated output, one head's workspace.
using wide_heads = std::array<cases::wide_head, 3>;
constexpr auto wide = ctattn::wide_multi_head_self_attention_footprint<wide_x, cases::wide_head, 3>;
static_assert(wide.weight_bytes == sizeof(wide_heads) && wide.weight_bytes == 3 * 4864);
static_assert(wide.input_bytes == sizeof(wide_x));
static_assert(wide.output_bytes == sizeof(ctattn::matrix<float, 6, 84>));
static_assert(wide.workspace_bytes == sizeof(ctattn::cross_attention_workspace<wide_x, wide_x, cases::wide_head>));
static_assert(ctattn::wide_multi_head_attention_footprint<wide_x, wide_x, cases::wide_head, 3>.input_bytes ==
              2 * sizeof(wide_x));

// Composition: storage adds up, the stack scratch is the deeper of the two.
constexpr auto both = worked + cross;
static_assert(both.weight_bytes == worked.weight_bytes + cross.weight_bytes);
static_assert(both.workspace_bytes == worked.workspace_bytes + cross.workspace_bytes);
static_assert(both.input_bytes == worked.input_bytes + cross.input_bytes);
static_assert(both.output_bytes == worked.output_bytes + cross.output_bytes);
static_assert(both.stack_bytes == 48);
static_assert((ctattn::footprint{} + worked) == worked);
constexpr auto accumulated = [] {
  ctattn::footprint f{};
  f += worked;
  f += ctattn::scaled_dot_product_attention_footprint<sq, sk, sv>;
  return f;
}();
static_assert(accumulated.stack_bytes == 2 * 7 * sizeof(float) && accumulated.weight_bytes == worked.weight_bytes);

// A budget check as users write it.
static_assert(worked.weight_bytes <= 8 * 1024 && worked.ram_bytes() <= 3 * 1024);

// Multi-head attention into caller storage: nn.MultiheadAttention's weights (2 heads, biases) and grouped-query
// weights (4 query heads sharing 2 key/value heads), the same bits as the returned form, with a causal mask.
template <typename W, typename X>
constexpr bool multi_head_into_matches(const W& weights, const X& input) {
  ctattn::multi_head_workspace<X, X, W> workspace{};
  decltype(ctattn::multi_head_attention(input, input, input, weights)) output{};
  ctattn::multi_head_attention(input, input, input, weights, ctattn::into(output, workspace), ctattn::causal);
  const auto returned =
      ctattn::multi_head_attention(input, input, input, weights, ctattn::causal, ctattn::with_weights);
  return same_bits(output, returned.output) && same_bits(workspace.heads_concat, returned.heads_concat);
}
namespace mh = ctattn_test::multihead_cases;
static_assert(multi_head_into_matches(mh::torch_packed_weights<float, mh::self_attention_case>(),
                                      ctattn::from_array(ctattn_fixtures::multihead::self_attention::x)));
static_assert(multi_head_into_matches(mh::grouped_weights<float, mh::grouped_query_case, 2>(),
                                      ctattn::from_array(ctattn_fixtures::multihead::grouped_query::x)));
// Its footprint: the objects' sizes.
using mha_weights = decltype(mh::torch_packed_weights<float, mh::self_attention_case>());
using mha_x = ctattn::matrix<float, 5, 8>;
constexpr ctattn::footprint mha = ctattn::multi_head_attention_footprint<mha_x, mha_x, mha_weights, 1>;
static_assert(mha.weight_bytes == sizeof(mha_weights) && mha.input_bytes == sizeof(mha_x) &&
              mha.output_bytes == sizeof(mha_x));
static_assert(mha.workspace_bytes == sizeof(ctattn::multi_head_workspace<mha_x, mha_x, mha_weights>) &&
              mha.workspace_bytes == 4 * sizeof(mha_x));
static_assert(mha.stack_bytes == 2 * 5 * sizeof(float));

// What a head and a workspace are, as concepts (passing anything else is a compile error naming the rule:
// tests/compile_fail/self_attention_given_multi_head_weights.cpp, workspace_configuration_mismatch.cpp).
static_assert(ctattn::AttentionHead<head_type> && !ctattn::AttentionHead<context_type>);
static_assert(ctattn::AttentionWorkspace<workspace_type> && !ctattn::AttentionWorkspace<context_type>);

}  // namespace
