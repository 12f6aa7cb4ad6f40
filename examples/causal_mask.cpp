// The causal mask of the reference text on a small self-attention: softmax(Q K^T / sqrt(d_k) + M) V, where M is
// 0 on and below the diagonal and -inf above it, so that no word attends to a word after it (next-word
// prediction must not see the future). Then a sliding window, the text's restricted attention: each word sees
// only its neighbours within a radius r, and ctattn visits only those 2r + 1 keys per query.
//
// The sentence and the head are the worked example's ("Life is short, eat dessert first", 6 tokens, d_k = 24);
// see examples/worked_example.cpp. Everything below is computed by the compiler.
#include <ctattn/ctattn.hpp>
#include <ctattn/position/embedding.hpp>

#include "worked_example_model.hpp"

#include <cstddef>
#include <cstdio>
#include <limits>
#include <string_view>

constexpr auto q = ctattn::project(embedded_sentence, head.query);
constexpr auto k = ctattn::project(embedded_sentence, head.key);
constexpr auto v = ctattn::project(embedded_sentence, head.value);

// The scaled scores Q K^T / sqrt(d_k), seq x seq.
constexpr auto scaled_scores = q * ctattn::transpose(k) / ctattn::math::sqrt(24.0f);

// A mask written out as the text's matrix M: 0 where query i may see key j, -inf where it may not.
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
template <typename Visible>
constexpr ctattn::matrix<float, seq{6}, seq{6}> mask_matrix(Visible visible) {
  ctattn::matrix<float, seq{6}, seq{6}> m{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 6; ++j) m(i, j) = visible(i, j) ? 0.0f : minus_infinity;
  }
  return m;
}

// 1. The causal mask M: m(i, j) = 0 for i >= j, -inf for i < j.
constexpr auto causal_m = mask_matrix([](std::size_t i, std::size_t j) { return i >= j; });
constexpr auto causal_scores = scaled_scores + causal_m;              // -inf above the diagonal
constexpr auto causal_weights = ctattn::softmax_rows(causal_scores);  // exp(-inf) = 0: lower-triangular

// ctattn's mask type `ctattn::causal` gives the same weights without building M (and never computes the scores
// it would hide); M itself also works, as an additive mask.
constexpr auto causal = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal, ctattn::with_weights);
static_assert(ctattn::approx_equal(causal.weights, causal_weights, 1e-6f, 1e-6f));
static_assert(ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(causal_m), ctattn::with_weights)
                  .weights == causal_weights);

constexpr bool lower_triangular(const ctattn::matrix<float, seq{6}, seq{6}>& w) {
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = i + 1; j < 6; ++j) {
      if (w(i, j) != 0.0f) return false;
    }
  }
  return true;
}
static_assert(lower_triangular(causal.weights));
static_assert(causal.weights(0, 0) == 1.0f, "the first word sees only itself");

// 2. A sliding window of radius 1: word i sees words i - 1, i and i + 1.
constexpr std::size_t radius = 1;
constexpr auto window_m = mask_matrix([](std::size_t i, std::size_t j) { return (i > j ? i - j : j - i) <= radius; });
constexpr auto window_scores = scaled_scores + window_m;
constexpr auto window =
    ctattn::scaled_dot_product_attention(q, k, v, ctattn::sliding_window<radius>, ctattn::with_weights);
static_assert(ctattn::approx_equal(window.weights, ctattn::softmax_rows(window_scores), 1e-6f, 1e-6f));

namespace {

void print(std::string_view title, const ctattn::matrix<float, seq{6}, seq{6}>& m) {
  std::printf("%.*s  [6 x 6] (row: query, column: key)\n  %-8s", static_cast<int>(title.size()), title.data(), "");
  for (const char* word : data::words) std::printf(" %8s", word);
  std::printf("\n");
  for (std::size_t i = 0; i < 6; ++i) {
    std::printf("  %-8s", data::words[i]);
    for (std::size_t j = 0; j < 6; ++j) std::printf(" %8.4f", static_cast<double>(m(i, j)));
    std::printf("\n");
  }
  std::printf("\n");
}

}  // namespace

int main() {
  std::printf("Causal mask on the worked example's self-attention (6 words, d_k = 24)\n\n");
  print("M: 0 on and below the diagonal, -inf above", causal_m);
  print("masked scores Q K^T / sqrt(d_k) + M", causal_scores);
  print("weights softmax(Q K^T / sqrt(d_k) + M): lower-triangular", causal.weights);

  std::printf("Sliding window of radius %zu: each word sees itself and its neighbours\n\n", radius);
  print("masked scores (-inf outside the window)", window_scores);
  print("weights: a band of width 3", window.weights);

  // Run time gives the same bits as the compiler.
  auto q_runtime = q;
  const auto causal_runtime =
      ctattn::scaled_dot_product_attention(q_runtime, k, v, ctattn::causal, ctattn::with_weights);
  const auto window_runtime =
      ctattn::scaled_dot_product_attention(q_runtime, k, v, ctattn::sliding_window<radius>, ctattn::with_weights);
  const bool same = causal_runtime.weights == causal.weights && causal_runtime.output == causal.output &&
                    window_runtime.weights == window.weights && window_runtime.output == window.output;
  std::printf("%s\n",
              same ? "Computed again at run time: the same bits." : "MISMATCH between run time and compile time");
  return same ? 0 : 1;
}
