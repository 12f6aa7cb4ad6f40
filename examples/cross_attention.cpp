// Cross-attention: the queries come from one sequence, the keys and values from another. Here a decoder that
// has produced 3 French words ("le chat noir") looks at the 5 English words of the encoder ("the black cat
// sleeps ."). The two sequences have different lengths but the same width d_model, so one head serves both:
//   Q = X_dec W_Q (seq_q x d_k),  K = X_enc W_K (seq_kv x d_k),  V = X_enc W_V (seq_kv x d_v),
//   weights = softmax(Q K^T / sqrt(d_k)) is seq_q x seq_kv (3 x 5), context = weights V is seq_q x d_v.
// Naming the two sequence axes lets the compiler tell them apart, even though a plain 3 and 5 would not say
// which is which.
#include <ctattn/ctattn.hpp>

#include <cstddef>
#include <cstdio>
#include <type_traits>

// The axes. seq_q and seq_kv are the two sequences; d_k and d_v are different axes even at equal sizes.
struct seq_q : ctattn::dimension<"seq_q"> {};
struct seq_kv : ctattn::dimension<"seq_kv"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// Toy embeddings with one feature per English word (the, black, cat, sleeps, .) plus a constant feature; each
// French word is close to the English word it translates. Both sequences are d_model = 6 wide.
constexpr const char* english[5] = {"the", "black", "cat", "sleeps", "."};
constexpr const char* french[3] = {"le", "chat", "noir"};

constexpr ctattn::matrix<float, seq_kv{5}, d_model{6}> encoder_tokens{{
    {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.5f},  // the
    {0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.5f},  // black
    {0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.5f},  // cat
    {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.5f},  // sleeps
    {0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.5f},  // .
}};
constexpr ctattn::matrix<float, seq_q{3}, d_model{6}> decoder_tokens{{
    {0.9f, 0.0f, 0.1f, 0.0f, 0.0f, 0.5f},  // le    ~ the
    {0.0f, 0.1f, 0.9f, 0.0f, 0.0f, 0.5f},  // chat  ~ cat
    {0.0f, 0.9f, 0.0f, 0.1f, 0.0f, 0.5f},  // noir  ~ black
}};

// A head in the reference text's layout (Q = X W_Q, W_Q is d_model x d_k). W_Q and W_K keep the features
// (scaled by 3, so that the softmax is decisive); W_V turns each English word into its part of speech
// (article, noun, adjective, verb), so each context row tells what kind of word the French word found.
constexpr auto scaled_identity(float s) {
  ctattn::matrix<float, d_model{6}, d_k{6}> w{};
  for (std::size_t i = 0; i < 6; ++i) w(i, i) = s;
  return w;
}
constexpr const char* part_of_speech[4] = {"article", "noun", "adj.", "verb"};
using head_type = ctattn::attention_head<float, d_model{6}, d_k{6}, d_v{4}>;  // in_by_out is the default
constexpr head_type head{
    .query = {scaled_identity(3.0f)},
    .key = {scaled_identity(3.0f)},
    .value = {ctattn::matrix<float, d_model{6}, d_v{4}>{{
        {1.0f, 0.0f, 0.0f, 0.0f},  // the: an article
        {0.0f, 0.0f, 1.0f, 0.0f},  // black: an adjective
        {0.0f, 1.0f, 0.0f, 0.0f},  // cat: a noun
        {0.0f, 0.0f, 0.0f, 1.0f},  // sleeps: a verb
        {0.0f, 0.0f, 0.0f, 0.0f},  // .
        {0.0f, 0.0f, 0.0f, 0.0f},  // the constant feature
    }}},
};

// The whole cross-attention, computed by the compiler: queries from the decoder, keys and values from the
// encoder, in that order.
constexpr auto attention = ctattn::cross_attention(decoder_tokens, encoder_tokens, head, ctattn::with_weights);
constexpr auto weights = attention.weights;  // seq_q x seq_kv
constexpr auto context = attention.output;   // seq_q x d_v

// The shapes carry the sequences' names: 3 x 5 weights, one context row per decoder token.
static_assert(std::is_same_v<std::remove_cv_t<decltype(weights)>, ctattn::matrix<float, seq_q{3}, seq_kv{5}>>);
static_assert(std::is_same_v<std::remove_cv_t<decltype(context)>, ctattn::matrix<float, seq_q{3}, d_v{4}>>);

// Each French word attends most to the English word it translates: le -> the, chat -> cat, noir -> black.
constexpr std::size_t most_attended(std::size_t query) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < 5; ++j) {
    if (weights(query, j) > weights(query, best)) best = j;
  }
  return best;
}
static_assert(most_attended(0) == 0 && most_attended(1) == 2 && most_attended(2) == 1);

// The same thing step by step with the projections, and the mistake named dimensions catch. Keys and values
// must come from the same sequence; projecting the keys from the decoder instead is a compile error (the
// sequences' lengths differ here, but the names would catch it at equal lengths too):
constexpr auto q = ctattn::project(decoder_tokens, head.query);  // seq_q x d_k
constexpr auto k = ctattn::project(encoder_tokens, head.key);    // seq_kv x d_k
constexpr auto v = ctattn::project(encoder_tokens, head.value);  // seq_kv x d_v
static_assert(ctattn::scaled_dot_product_attention(q, k, v) == context);
//
//   constexpr auto k_wrong = ctattn::project(decoder_tokens, head.key);        // seq_q x d_k: the wrong sequence
//   constexpr auto wrong = ctattn::scaled_dot_product_attention(q, k_wrong, v);
//
// GCC 12 and Clang 14, first error line: "ctattn: every key needs its value, so keys and values must have the
// same number of rows (n_kv); take both from the same sequence"; next to it, the rule with both dimensions:
//           ctattn::shape_error::key_and_value_counts_must_match<ctattn::op::scaled_dot_product_attention,
//           ctattn::dim<seq_q, 3>, ctattn::dim<seq_kv, 5>>
//
// Swapping the two sequences in the call, cross_attention(encoder_tokens, decoder_tokens, head), is legal
// cross-attention too (the encoder would attend to the decoder), so it compiles, but its result is
// seq_kv x d_v: stating the type you expect turns the mix-up into an error.
//
//   constexpr ctattn::matrix<float, seq_q{3}, d_v{4}> swapped =
//       ctattn::cross_attention(encoder_tokens, decoder_tokens, head);
//
// GCC 12:   error: conversion from 'basic_matrix<[...],seq_kv{...{5}},[...]>' to non-scalar type   (shortened)
//           'basic_matrix<[...],seq_q{...{3}},[...]>' requested
// Clang 14: error: no viable conversion from 'basic_matrix<[...], {{5}}, [...]>' to
//           'const basic_matrix<[...], {{3}}, [...]>'

int main() {
  std::printf("Cross-attention: 3 decoder tokens (queries) attend to 5 encoder tokens (keys and values).\n\n");
  std::printf("attention weights softmax(Q K^T / sqrt(d_k))  [3 x 5] seq_q x seq_kv\n  %-6s", "");
  for (const char* word : english) std::printf(" %8s", word);
  std::printf("\n");
  for (std::size_t i = 0; i < 3; ++i) {
    std::printf("  %-6s", french[i]);
    for (std::size_t j = 0; j < 5; ++j) std::printf(" %8.4f", static_cast<double>(weights(i, j)));
    std::printf("   -> %s\n", english[most_attended(i)]);
  }
  std::printf("\ncontext = weights V  [3 x 4] seq_q x d_v (W_V gives each English word its part of speech)\n  %-6s",
              "");
  for (const char* name : part_of_speech) std::printf(" %8s", name);
  std::printf("\n");
  for (std::size_t i = 0; i < 3; ++i) {
    std::printf("  %-6s", french[i]);
    for (std::size_t c = 0; c < 4; ++c) std::printf(" %8.4f", static_cast<double>(context(i, c)));
    std::printf("\n");
  }

  // Run time gives the same bits.
  auto decoder_runtime = decoder_tokens;
  auto encoder_runtime = encoder_tokens;
  const auto run_time = ctattn::cross_attention(decoder_runtime, encoder_runtime, head, ctattn::with_weights);
  const bool same = run_time.weights == weights && run_time.output == context;
  std::printf("\n%s\n",
              same ? "Computed again at run time: the same bits." : "MISMATCH between run time and compile time");
  return same ? 0 : 1;
}
