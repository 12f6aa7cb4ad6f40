// The code of docs/tutorial.md, as one program: self-attention step by step on the reference text's worked
// example ("Life is short, eat dessert first", 6 tokens embedded in 16 dimensions, d_q = d_k = 24, d_v = 28),
// then multi-head attention, the causal mask, cross-attention, a sliding window and position encodings.
//
// Each step states what its types prove in a static_assert, and the figures the reference text publishes are
// checked by the compiler too. At run time the program computes the attention again and checks the bits.
#include <ctattn/ctattn.hpp>
#include <ctattn/math/sqrt.hpp>
#include <ctattn/position/embedding.hpp>
#include <ctattn/position/sinusoidal.hpp>

#include "worked_example_model.hpp"

#include <array>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <type_traits>

// The type of a value, without const: what the static_asserts below compare.
template <typename M>
using type_of = std::remove_cvref_t<M>;

// A published figure, to the 4 decimals the reference text prints.
constexpr bool near(float computed, float published) {
  return (computed > published ? computed - published : published - computed) < 5e-5f;
}

// [step-x]
// X: one row of d_model = 16 features per token (worked_example_model.hpp embeds the 6 token ids).
static_assert(std::is_same_v<type_of<decltype(embedded_sentence)>, ctattn::matrix<float, seq{6}, d_model{16}>>);
// [step-x]

// [step-qkv]
// W_Q and W_K map d_model to d_k = 24, W_V maps d_model to d_v = 28. The head stores them as PyTorch does
// (out x in, ctattn::out_by_in), so q_i = W_Q x_i, and project() computes Q = X W_Q^T for every token at once.
constexpr auto q = ctattn::project(embedded_sentence, head.query);
constexpr auto k = ctattn::project(embedded_sentence, head.key);
constexpr auto v = ctattn::project(embedded_sentence, head.value);
static_assert(std::is_same_v<type_of<decltype(q)>, ctattn::matrix<float, seq{6}, d_k{24}>>);  // seq x d_k
static_assert(std::is_same_v<type_of<decltype(k)>, ctattn::matrix<float, seq{6}, d_k{24}>>);  // seq x d_k
static_assert(std::is_same_v<type_of<decltype(v)>, ctattn::matrix<float, seq{6}, d_v{28}>>);  // seq x d_v
// [step-qkv]

// [step-scores]
// The scores omega = Q K^T: the transpose turns K into d_k x seq, the product contracts d_k with d_k, and one
// score is left for each (query, key) pair.
constexpr auto omega = q * ctattn::transpose(k);
static_assert(std::is_same_v<type_of<decltype(omega)>, ctattn::matrix<float, seq{6}, seq{6}>>);
// The text's omega_24: query 2 ("is", row 1) against key 5 ("dessert", column 4).
static_assert(near(omega(1, 4), 11.1466f));
// [step-scores]

// [step-softmax]
// Scaling by sqrt(d_k) keeps the dot products of wide vectors from pushing the softmax into saturation;
// softmax_rows turns each row into weights that are positive and sum to 1.
constexpr auto weights = ctattn::softmax_rows(omega / ctattn::math::sqrt(24.0f));
static_assert(std::is_same_v<type_of<decltype(weights)>, ctattn::matrix<float, seq{6}, seq{6}>>);
static_assert(near(weights(1, 0), 0.2912f) && near(weights(1, 1), 0.0106f) && near(weights(1, 2), 0.0982f) &&
              near(weights(1, 3), 0.0625f) && near(weights(1, 4), 0.4917f) && near(weights(1, 5), 0.0458f));
// [step-softmax]

// [step-context]
// The context Z = weights V: each token's row is a weighted mean of the values, seq x d_v.
constexpr auto context = weights * v;
static_assert(std::is_same_v<type_of<decltype(context)>, ctattn::matrix<float, seq{6}, d_v{28}>>);
static_assert(near(context(1, 0), -1.5993f) && near(context(1, 1), 0.0156f) && near(context(1, 2), 1.2670f));

// The same in one call: softmax(Q K^T / sqrt(d_k)) V, and from X and the head directly.
constexpr auto attention = ctattn::scaled_dot_product_attention(q, k, v);
static_assert(ctattn::approx_equal(attention, context, 1e-6f, 1e-6f));
static_assert(ctattn::self_attention(embedded_sentence, head) == attention);
// [step-context]

// [step-multi-head]
// Narrow multi-head attention: W_Q, W_K, W_V map d_model to d_model, the result is split into h = 4 heads of
// d_model / h = 4 columns, each head attends on its own, the heads are joined again and W_O mixes them.
constexpr std::size_t h = 4;
using mha_weights = ctattn::multi_head_attention_weights<float, h, d_model{16}>;  // Q = X W_Q (in x out)

// Small deterministic weights in [-0.5, 0.5]; `salt` makes the four matrices differ.
constexpr ctattn::matrix<float, d_model{16}, d_model{16}> sample_weight(std::size_t salt) {
  ctattn::matrix<float, d_model{16}, d_model{16}> w{};
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 16; ++j) w(i, j) = static_cast<float>((i * 7 + j * 3 + salt * 5) % 11) / 10.0f - 0.5f;
  }
  return w;
}
constexpr mha_weights mha{
    .query = {sample_weight(1)}, .key = {sample_weight(2)}, .value = {sample_weight(3)}, .output = {sample_weight(4)}};

constexpr auto multi_head = ctattn::multi_head_attention(embedded_sentence, embedded_sentence, embedded_sentence, mha);
static_assert(std::is_same_v<type_of<decltype(multi_head)>, ctattn::matrix<float, seq{6}, d_model{16}>>);

// The same steps by hand. Each head's columns are named part_of<d_model, 4>, and joining the four blocks gives
// d_model back, so W_O accepts the result.
constexpr auto by_hand = [] {
  const auto q_heads = ctattn::split_columns<h>(ctattn::project(embedded_sentence, mha.query));
  const auto k_heads = ctattn::split_columns<h>(ctattn::project(embedded_sentence, mha.key));
  const auto v_heads = ctattn::split_columns<h>(ctattn::project(embedded_sentence, mha.value));
  std::array<type_of<decltype(v_heads[0])>, h> contexts{};
  for (std::size_t i = 0; i < h; ++i) {
    contexts[i] = ctattn::scaled_dot_product_attention(q_heads[i], k_heads[i], v_heads[i]);
  }
  return ctattn::project(ctattn::concat_columns(contexts), mha.output);
}();
// One head's queries: seq x part_of<d_model, 4>{4}, a quarter of d_model under a name that says so.
using head_block = ctattn::matrix<float, seq{6}, ctattn::part_of<d_model, h>{16 / h}>;
static_assert(
    std::is_same_v<type_of<decltype(ctattn::split_columns<h>(embedded_sentence))>, std::array<head_block, h>>);
static_assert(ctattn::approx_equal(by_hand, multi_head, 1e-5f, 1e-5f));
// [step-multi-head]

// [step-wide]
// Wide heads: every head projects all of X with its own W_Q, W_K, W_V (d_model -> d_k, d_v), and the heads'
// contexts are stacked side by side: h x d_v columns. Three copies of the worked example's head here, so each
// block of 28 columns is the context computed above.
constexpr std::array<head_type, 3> wide_heads{head, head, head};
constexpr auto stacked = ctattn::wide_multi_head_attention(embedded_sentence, embedded_sentence, wide_heads);
static_assert(type_of<decltype(stacked)>::rows == 6 && type_of<decltype(stacked)>::cols == 3 * 28);
static_assert(stacked(1, 2 * 28) == attention(1, 0));
// [step-wide]

// [step-causal]
// The causal mask M: 0 where key j is at or before query i, -inf after it. Added to the scaled scores, it
// leaves exp(-inf) = 0 in the softmax: no token draws on a token that comes after it.
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
constexpr auto causal_m = [] {
  ctattn::matrix<float, seq{6}, seq{6}> m{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = i + 1; j < 6; ++j) m(i, j) = minus_infinity;
  }
  return m;
}();
constexpr auto causal_weights = ctattn::softmax_rows(omega / ctattn::math::sqrt(24.0f) + causal_m);
static_assert(causal_weights(0, 0) == 1.0f && causal_weights(0, 1) == 0.0f);  // the first token sees itself only
static_assert(causal_weights(1, 2) == 0.0f && causal_weights(4, 5) == 0.0f);  // nothing from the future

// ctattn::causal does the same without building M (and skips the scores M would hide); M itself is accepted
// as an additive bias of the scores' shape, seq x seq.
constexpr auto causal_context = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
static_assert(ctattn::approx_equal(causal_context, causal_weights* v, 1e-5f, 1e-5f));
static_assert(ctattn::approx_equal(ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(causal_m)),
                                   causal_context, 1e-5f, 1e-5f));
// [step-causal]

// [step-cross]
// Cross-attention: queries from one sequence (seq_q), keys and values from another (here the 6 tokens, seq).
// The queries are the last three tokens, "eat dessert first", under a sequence axis of their own.
struct seq_q : ctattn::dimension<"seq_q"> {};
constexpr auto decoder_tokens = [] {
  ctattn::matrix<float, seq_q{3}, d_model{16}> x{};
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 16; ++j) x(i, j) = embedded_sentence(3 + i, j);
  }
  return x;
}();
constexpr auto q_cross = ctattn::project(decoder_tokens, head.query);  // seq_q x d_k
constexpr auto cross_weights = ctattn::softmax_rows(q_cross * ctattn::transpose(k) / ctattn::math::sqrt(24.0f));
constexpr auto cross_context = ctattn::cross_attention(decoder_tokens, embedded_sentence, head);
static_assert(std::is_same_v<type_of<decltype(cross_weights)>, ctattn::matrix<float, seq_q{3}, seq{6}>>);
static_assert(std::is_same_v<type_of<decltype(cross_context)>, ctattn::matrix<float, seq_q{3}, d_v{28}>>);
// The same tokens asking the same head: the rows of self-attention for tokens 3, 4 and 5.
static_assert(near(cross_weights(1, 4), weights(4, 4)) && near(cross_context(2, 0), context(5, 0)));
// [step-cross]

// [step-window]
// Restricted attention: a window of radius r = 1 around each token, so each query weighs at most 2r + 1 keys
// (cost n r d instead of n^2 d). The window written as a mask, then ctattn::sliding_window<1>.
constexpr auto window_m = [] {
  ctattn::matrix<float, seq{6}, seq{6}> m{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 6; ++j) m(i, j) = (i > j ? i - j : j - i) <= 1 ? 0.0f : minus_infinity;
  }
  return m;
}();
constexpr auto window_weights = ctattn::softmax_rows(omega / ctattn::math::sqrt(24.0f) + window_m);
static_assert(window_weights(2, 0) == 0.0f && window_weights(2, 4) == 0.0f);  // outside |i - j| <= 1
static_assert(window_weights(2, 1) > 0.0f && window_weights(2, 3) > 0.0f);
constexpr auto window_context = ctattn::scaled_dot_product_attention(q, k, v, ctattn::sliding_window<1>);
static_assert(ctattn::approx_equal(window_context, window_weights* v, 1e-5f, 1e-5f));
// [step-window]

// [step-position]
// Attention itself ignores word order; position encodings add it to X before the projections.
// Sinusoidal: PE(t, 2i) = sin(t / 10000^(2i / d_model)), PE(t, 2i + 1) = cos(t / 10000^(2i / d_model)).
constexpr auto pe = ctattn::sinusoidal_position_encoding<float, seq{6}, d_model{16}>();
static_assert(std::is_same_v<type_of<decltype(pe)>, ctattn::matrix<float, seq{6}, d_model{16}>>);
static_assert(pe(0, 0) == 0.0f && pe(0, 1) == 1.0f);                // sin(0), cos(0)
static_assert(near(pe(1, 0), 0.8415f) && near(pe(1, 1), 0.5403f));  // sin(1), cos(1)
constexpr auto x_sinusoidal = embedded_sentence + pe;

// Learned: one trained row per position, up to the longest sequence seen in training (8 here).
constexpr auto learned_table = [] {
  ctattn::matrix<float, 8, d_model{16}> table{};
  for (std::size_t t = 0; t < 8; ++t) {
    for (std::size_t j = 0; j < 16; ++j) table(t, j) = static_cast<float>(t) / 100.0f;
  }
  return table;
}();
constexpr auto x_learned = ctattn::add_position_embeddings(embedded_sentence, learned_table);
static_assert(std::is_same_v<type_of<decltype(x_learned)>, ctattn::matrix<float, seq{6}, d_model{16}>>);
static_assert(x_learned(2, 0) == embedded_sentence(2, 0) + 0.02f);
// [step-position]

int main() {
  // [step-run-time]
  // The same call at run time, on a copy the program could have read from a file: the same bits.
  auto x_runtime = embedded_sentence;
  const auto attention_runtime = ctattn::self_attention(x_runtime, head);
  const bool same = attention_runtime == attention &&
                    ctattn::multi_head_attention(x_runtime, x_runtime, x_runtime, mha) == multi_head;
  // [step-run-time]
  std::printf("context of \"is\" (row 1): %.4f %.4f %.4f ...\n", static_cast<double>(attention(1, 0)),
              static_cast<double>(attention(1, 1)), static_cast<double>(attention(1, 2)));
  std::printf("first row with sinusoidal positions starts %.4f\n", static_cast<double>(x_sinusoidal(0, 0)));
  std::printf("%s\n", same ? "run time and compile time agree" : "MISMATCH between run time and compile time");
  return same ? 0 : 1;
}
