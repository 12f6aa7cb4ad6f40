// Greedy decoding with a key/value cache: the decoder-only sorter trained in PyTorch (causal_sorter.safetensors,
// imported by the build as causal_weights.hpp) writes each prompt's digits sorted, one token at a time. The
// compiler proves that its logits over the golden sequences match PyTorch's, that decoding with the caches gives
// those logits' rows bit for bit, and that the answers are sorted; the run time decodes the same way.
#include <cstdio>

#include "causal_golden.hpp"
#include "causal_sorter.hpp"
#include "causal_weights.hpp"  // generated: inline constexpr toy::causal_sorter causal_weights

namespace {

constexpr std::array<int, 6> sorted(std::array<int, 6> d) noexcept {
  for (std::size_t i = 1; i < 6; ++i) {
    for (std::size_t j = i; j > 0 && d[j - 1] > d[j]; --j) {
      const int t = d[j];
      d[j] = d[j - 1];
      d[j - 1] = t;
    }
  }
  return d;
}

// The whole golden sequence: prompt, separator, the sorted digits but the last (what PyTorch ran on).
constexpr std::array<int, 12> sequence_of(std::size_t g) noexcept {
  std::array<int, 12> ids{};
  const auto answer = sorted(causal_golden::prompts[g]);
  for (std::size_t i = 0; i < 6; ++i) ids[i] = causal_golden::prompts[g][i];
  ids[6] = toy::separator;
  for (std::size_t i = 0; i < 5; ++i) ids[7 + i] = answer[i];
  return ids;
}

// The whole-sequence logits are PyTorch's, to 1e-5 relative to 1 + |logit|.
template <std::size_t G>
constexpr bool logits_match_pytorch() noexcept {
  const auto full = causal_weights.forward(sequence_of(G));
  for (std::size_t t = 0; t < 12; ++t) {
    for (std::size_t c = 0; c < toy::causal_vocabulary; ++c) {
      const float torch = causal_golden::logits[G][t][c];
      const float d = full(t, c) - torch;
      if ((d < 0 ? -d : d) > 1e-5f * (1 + (torch < 0 ? -torch : torch))) return false;
    }
  }
  return true;
}

// Decoding the same tokens one at a time with the caches gives the whole pass's rows, bit for bit. Checked for the
// last rows, which see every cached token (a compile-time evaluation has a step budget: Clang's default is about
// a million steps, and one evaluation of all 12 rows and the whole pass exceeds it).
template <std::size_t G>
constexpr bool decoding_matches_forward() noexcept {
  const auto ids = sequence_of(G);
  const auto full = causal_weights.forward(ids);
  toy::causal_sorter::state state{};
  toy::causal_sorter::logits_row row{};
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (!causal_weights.step(ids[t], state, row)) return false;
  }
  for (std::size_t c = 0; c < toy::causal_vocabulary; ++c) {
    if (row(0, c) != full(ids.size() - 1, c)) return false;
  }
  return true;
}

// Greedy decoding with the caches sorts the prompt.
template <std::size_t G>
constexpr bool decoding_sorts() noexcept {
  return causal_weights.sort(causal_golden::prompts[G]) == sorted(causal_golden::prompts[G]);
}

static_assert(logits_match_pytorch<0>() && logits_match_pytorch<1>(), "the logits differ from PyTorch's");
static_assert(decoding_matches_forward<0>(), "decoding with the caches differs from the whole forward pass");
static_assert(decoding_matches_forward<1>(), "decoding with the caches differs from the whole forward pass");
static_assert(decoding_sorts<0>(), "greedy decoding does not sort golden prompt 0");
static_assert(decoding_sorts<1>(), "greedy decoding does not sort golden prompt 1");
static_assert(causal_golden::count == 2);

constexpr auto compile_time = causal_weights.sort(causal_golden::prompts[0]);

}  // namespace

int main() {
  // A static copy of the model (a local one would be thousands of stores in main(): verified_model.cpp says why).
  static toy::causal_sorter model = causal_weights;
  int failures = 0;
  for (std::size_t g = 0; g < causal_golden::count; ++g) {
    // Token by token, printing each digit as it is decoded.
    toy::causal_sorter::state state{};
    toy::causal_sorter::logits_row logits{};
    std::printf("prompt ");
    for (const int d : causal_golden::prompts[g]) {
      std::printf("%d", d);
      (void)model.step(d, state, logits, ctattn::exact_arithmetic);
    }
    (void)model.step(toy::separator, state, logits, ctattn::exact_arithmetic);
    std::printf("  ->  ");
    std::array<int, 6> answer{};
    for (std::size_t i = 0; i < 6; ++i) {
      answer[i] = toy::causal_sorter::most_likely_digit(logits);
      std::printf("%d", answer[i]);
      if (i + 1 < 6 && !model.step(answer[i], state, logits, ctattn::exact_arithmetic)) ++failures;
    }
    std::printf("   (%zu tokens in the caches)\n", state.length());
    if (answer != sorted(causal_golden::prompts[g])) ++failures;
    if (g == 0 && answer != compile_time) ++failures;
  }
  // Every row of decoding with the caches equals the whole forward pass's, bit for bit (the compiler checked the
  // last row of each golden sequence).
  for (std::size_t g = 0; g < causal_golden::count; ++g) {
    const auto ids = sequence_of(g);
    const auto whole = model.forward(ids, ctattn::exact_arithmetic);
    toy::causal_sorter::state state{};
    for (std::size_t t = 0; t < ids.size(); ++t) {
      toy::causal_sorter::logits_row row{};
      if (!model.step(ids[t], state, row, ctattn::exact_arithmetic)) ++failures;
      for (std::size_t c = 0; c < toy::causal_vocabulary; ++c) {
        if (row(0, c) != whole(t, c)) ++failures;
      }
    }
  }
  // The caches hold 13 tokens: a 14th is refused.
  toy::causal_sorter::state full{};
  toy::causal_sorter::logits_row logits{};
  for (std::size_t t = 0; t < toy::causal_length; ++t) (void)model.step(1, full, logits);
  if (model.step(1, full, logits)) ++failures;
  std::printf("greedy decoding in PyTorch sorts %.2f%% of 2000 test sequences\n",
              100 * causal_golden::test_sequences_sorted);
  return failures == 0 ? 0 : 1;
}
