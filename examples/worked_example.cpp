// The reference text's worked example, "Life is short, eat dessert first", step by step: one attention head
// over 6 tokens embedded in 16 dimensions, d_q = d_k = 24, d_v = 28, weights as PyTorch stores them (out x in).
//
// Every step is evaluated by the compiler (constexpr) and the figures the text publishes are checked in
// static_assert: if this file compiles, ctattn reproduces them. At run time the program prints each step with
// the words as row labels, then computes the whole example again at run time and checks it gets the same bits.
//
// The inputs (embedding table, W_query, W_key, W_value) are torch's values, read from the same committed fixture
// the tests and the firmware images use (tests/fixtures/attention/worked_example.hpp).
#include <ctattn/ctattn.hpp>
#include <ctattn/math/sqrt.hpp>
#include <ctattn/position/embedding.hpp>

#include "worked_example_model.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string_view>

// Steps 1 and 2 (the axes, the embedded sentence X and the head W_Q, W_K, W_V) are in worked_example_model.hpp.

// Step 3: queries, keys and values, one row per token.
constexpr auto q = ctattn::project(embedded_sentence, head.query);  // seq x d_k
constexpr auto k = ctattn::project(embedded_sentence, head.key);    // seq x d_k
constexpr auto v = ctattn::project(embedded_sentence, head.value);  // seq x d_v

// Step 4: the unnormalized attention weights omega = Q K^T (seq x seq).
constexpr auto omega = q * ctattn::transpose(k);

// Step 5: the attention weights softmax(omega / sqrt(d_k)), and step 6: the context vectors (seq x d_v).
// ctattn::self_attention(x, head, ctattn::with_weights) does steps 3 to 6 in one call.
constexpr auto attention = ctattn::self_attention(embedded_sentence, head, ctattn::with_weights);
constexpr auto weights = attention.weights;  // seq x seq
constexpr auto context = attention.output;   // seq x d_v

// The same weights written out as the text computes them.
static_assert(ctattn::approx_equal(weights, ctattn::softmax_rows(omega / ctattn::math::sqrt(24.0f)), 1e-6f, 1e-6f));

// The published figures, to the 4 decimals the text prints. The text's "query 2" is the second token, "is"
// (row 1), and its "5th input element" is "dessert" (column 4).
constexpr std::size_t query_2 = 1;
constexpr std::size_t key_5 = 4;
constexpr bool near(float computed, float published) {
  return (computed > published ? computed - published : published - computed) < 5e-5f;
}
static_assert(near(omega(query_2, key_5), 11.1466f), "omega_24 = query_2 . keys[4] = 11.1466");
static_assert(near(omega(query_2, 0), 8.5808f) && near(omega(query_2, 1), -7.6597f) &&
              near(omega(query_2, 2), 3.2558f) && near(omega(query_2, 3), 1.0395f) &&
              near(omega(query_2, 5), -0.4800f));
static_assert(near(weights(query_2, 0), 0.2912f) && near(weights(query_2, 1), 0.0106f) &&
                  near(weights(query_2, 2), 0.0982f) && near(weights(query_2, 3), 0.0625f) &&
                  near(weights(query_2, 4), 0.4917f) && near(weights(query_2, 5), 0.0458f),
              "attention_weights_2 = [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458]");
static_assert(near(context(query_2, 0), -1.5993f) && near(context(query_2, 1), 0.0156f) &&
                  near(context(query_2, 2), 1.2670f),
              "context_vector_2 starts -1.5993, 0.0156, 1.2670");

namespace {

// Prints a matrix with a word before each row (and, for seq x seq matrices, above each column). Wide matrices
// are printed in blocks of at most 10 columns, each headed by its column indices.
template <typename Matrix>
void print_step(std::string_view title, const Matrix& m, bool words_as_columns = false) {
  constexpr std::size_t rows = Matrix::rows;
  constexpr std::size_t cols = Matrix::cols;
  std::printf("%.*s  [%zu x %zu]\n", static_cast<int>(title.size()), title.data(), rows, cols);
  const std::size_t blocks = (cols + 9) / 10;
  const std::size_t per_block = (cols + blocks - 1) / blocks;
  for (std::size_t first = 0; first < cols; first += per_block) {
    const std::size_t last = std::min(cols, first + per_block);
    std::printf("  %-8s", "");
    for (std::size_t j = first; j < last; ++j) {
      if (words_as_columns) {
        std::printf(" %8s", data::words[j]);
      } else {
        std::printf(" %8zu", j);
      }
    }
    std::printf("\n");
    for (std::size_t i = 0; i < rows; ++i) {
      std::printf("  %-8s", data::words[i]);
      for (std::size_t j = first; j < last; ++j) std::printf(" %8.4f", static_cast<double>(m(i, j)));
      std::printf("\n");
    }
  }
  std::printf("\n");
}

}  // namespace

int main() {
  std::printf("The reference text's worked example, evaluated by the compiler.\n\n");
  std::printf("sentence:   \"Life is short, eat dessert first\"\n");
  std::printf("dictionary: {");
  for (std::size_t t = 0; t < 6; ++t) std::printf("%s'%s': %zu", t == 0 ? "" : ", ", data::vocabulary[t], t);
  std::printf("}\ntoken ids:  [");
  for (std::size_t i = 0; i < 6; ++i) std::printf("%s%zu", i == 0 ? "" : ", ", data::token_ids[i]);
  std::printf("]\n\n");

  print_step("X: the embedded sentence (seq x d_model)", embedded_sentence);
  std::printf(
      "W_query [24 x 16], W_key [24 x 16], W_value [28 x 16]: torch.rand after torch.manual_seed(123),\n"
      "stored out x in (d_k x d_model), so q_i = W_query x_i.\n\n");
  print_step("Q = X W_query^T: one query per word (seq x d_k)", q);
  print_step("K = X W_key^T: one key per word (seq x d_k)", k);
  print_step("V = X W_value^T: one value per word (seq x d_v)", v);
  print_step("omega = Q K^T: unnormalized attention weights (row: query, column: key)", omega, true);
  print_step("softmax(omega / sqrt(d_k)): attention weights, each row sums to 1", weights, true);
  print_step("Z = weights V: one context vector per word (seq x d_v)", context);

  // The text counts words from 1 ("query 2", "key 5") and indexes arrays from 0 (keys[4]); so does this output.
  std::printf(
      "The text's figures for query 2, the second word \"is\" (index 1, counting from 0), checked by\n"
      "static_assert in this file:\n");
  std::printf("  omega_24 = query_2 . keys[4], the score against key 5, the fifth word \"dessert\" (index 4) = %.4f\n",
              static_cast<double>(omega(query_2, key_5)));
  std::printf("  attention_weights_2 = [");
  for (std::size_t j = 0; j < 6; ++j)
    std::printf("%s%.4f", j == 0 ? "" : ", ", static_cast<double>(weights(query_2, j)));
  std::printf("]\n  context_vector_2 starts %.4f, %.4f, %.4f\n\n", static_cast<double>(context(query_2, 0)),
              static_cast<double>(context(query_2, 1)), static_cast<double>(context(query_2, 2)));

  // The whole example again at run time, from a copy of the inputs that the program could have read from a file.
  auto x_runtime = embedded_sentence;
  auto head_runtime = head;
  // exact_arithmetic: the scalar kernels, whose sums run in the compiler's order (docs/kernels.md).
  const auto run_time = ctattn::self_attention(x_runtime, head_runtime, ctattn::with_weights, ctattn::exact_arithmetic);
  const bool same_bits = run_time.output == context && run_time.weights == weights;
  std::printf("%s\n", same_bits ? "Computed again at run time: the same bits as the compiler's."
                                : "MISMATCH between run time and compile time");
  return same_bits ? 0 : 1;
}
