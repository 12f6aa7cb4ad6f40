// The llama-style layers (ctattn/layers/llama.hpp) against their PyTorch fixtures (tests/fixtures/layers/llama.hpp),
// in float and double: one list of results, asserted at compile time (tests/static/llama_test.cpp), checked at run
// time with exact arithmetic (tests/runtime/llama_test.cpp) and with each SIMD backend's fast arithmetic
// (tests/backend/backend_test.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "fixtures/layers/llama.hpp"
#include "support/layer_cases.hpp"
#include "support/layer_check.hpp"

namespace ctattn_test::llama_cases {

using layer_cases::first_failure;
using layer_cases::result;

template <typename T, ctattn::rotary_layout L = ctattn::rotary_layout::interleaved>
using attention = ctattn::llama_attention<T, 16, 4, 2, 8, L>;
template <typename T>
using block = ctattn::llama_block<T, 16, 4, 2, 24, 8>;
template <typename T, bool Tied>
using model = ctattn::llama_transformer<T, 32, 16, 2, 4, 2, 24, 8, Tied>;

// Bounds, relative to 1 + |PyTorch's value|. A layer: as layer_cases.hpp's, float results as close to PyTorch's
// float32 as two float32 computations of the formula get; PyTorch's float32 rotary table is computed in float32
// (angles t * theta^(-2p/d) and their cosines each rounded), ctattn's in double and rounded once, which stays within
// that bound. A model: two blocks and a head of 16-term sums, each float32 step's rounding carried through (the
// largest seen 1e-6, exact and fast alike); double as a layer.
inline constexpr double float_bound = layer_cases::float_bound;
inline constexpr double double_bound = layer_cases::double_bound;
inline constexpr double model_float_bound = 4e-6;
inline constexpr double model_double_bound = layer_cases::double_bound;

// The largest |step - forward| over the rows of `input`: decoding it token by token over a key/value cache against
// the whole sequence at once. 0 with exact arithmetic (the same sums in the same order).
template <typename L, typename T, std::size_t R, std::size_t C, typename... Options>
constexpr double step_error(const L& layer, const T (&input)[R][C], const Options&... options) noexcept {
  const auto x = ctattn::from_array(input);
  const auto whole = ctattn::forward(layer, x, options...);
  typename L::template cache_type<R + 2> cache{};
  double worst = 0;
  for (std::size_t t = 0; t < R; ++t) {
    ctattn::matrix<T, 1, C> row{};
    ctattn::matrix<T, 1, C> out{};
    for (std::size_t j = 0; j < C; ++j) row.elements[0][j] = x.elements[t][j];
    if (!layer.step(row, cache, out, options...)) return 1e300;
    for (std::size_t j = 0; j < C; ++j) {
      const double d = static_cast<double>(out.elements[0][j]) - static_cast<double>(whole.elements[t][j]);
      worst = d < 0 ? (-d > worst ? -d : worst) : (d > worst ? d : worst);
    }
  }
  return worst;
}

// A layer loaded from its fixture: its output against PyTorch's, and its decoding against its own forward.
template <typename L, typename T, std::size_t P, std::size_t N, std::size_t R, std::size_t C, typename... Options>
constexpr std::array<double, 2> layer_errors(const T (&params)[P], const char* const (&names)[N],
                                             const std::size_t (&sizes)[N], const std::size_t (&ranks)[N],
                                             const T (&input)[R][C], const T (&output)[R][C],
                                             const Options&... options) noexcept {
  L layer{};
  if (!load_in_order(layer, params, names, sizes, ranks)) return {1e300, 1e300};
  return {largest_error(ctattn::forward(layer, ctattn::from_array(input), options...), output),
          step_error(layer, input, options...)};
}

// A model loaded from its fixture: [0] its logits against PyTorch's; [1] the largest |step - forward| over the
// logits of decoding the same ids; [2] the tokens greedy decoding (ctattn::generate_greedy: ctattn::greedy_token over
// `step`'s logits, in a state of exactly the steps it takes) picks differently from PyTorch's after the prompt, plus
// 100 when a step refuses or the steps are not each seen once, in order.
template <typename M, typename T, std::size_t P, std::size_t N, std::size_t K, std::size_t V, std::size_t PR,
          std::size_t G, typename... Options>
constexpr std::array<double, 3> model_errors(const T (&params)[P], const char* const (&names)[N],
                                             const std::size_t (&sizes)[N], const std::size_t (&ranks)[N],
                                             const std::size_t (&ids)[K], const T (&output)[K][V],
                                             const std::size_t (&prompt)[PR], const std::size_t (&generated)[G],
                                             const Options&... options) noexcept {
  M m{};
  if (!load_in_order(m, params, names, sizes, ranks)) return {1e300, 1e300, 1e300};
  std::array<std::size_t, K> sequence{};
  for (std::size_t t = 0; t < K; ++t) sequence[t] = ids[t];
  const auto logits = m.forward(sequence, options...);
  std::array<double, 3> errors{largest_error(logits, output), 0, 0};
  typename M::template decode_state<K> state{};
  typename M::logits_row row{};
  for (std::size_t t = 0; t < K; ++t) {
    if (m.step(sequence[t], state, row, options...) != ctattn::decode_status::decoded) return {1e300, 1e300, 1e300};
    for (std::size_t j = 0; j < V; ++j) {
      const double d = static_cast<double>(row.elements[0][j]) - static_cast<double>(logits.elements[t][j]);
      errors[1] = d < 0 ? (-d > errors[1] ? -d : errors[1]) : (d > errors[1] ? d : errors[1]);
    }
  }
  static_assert(G > 0, "the greedy check needs generated ids");
  typename M::template decode_state<PR + G - 1> greedy{};
  std::array<std::size_t, G> picks{};
  std::size_t seen = 0;
  const ctattn::greedy_generation run = ctattn::generate_greedy(
      m, greedy, row, prompt, picks, [&seen](std::size_t step, const auto&) { seen += step == seen ? 1 : 1000; },
      options...);
  if (run.status != ctattn::decode_status::decoded || run.generated != G || seen != PR + G - 1) errors[2] += 100;
  for (std::size_t t = 0; t < G; ++t) errors[2] += picks[t] != generated[t] ? 1 : 0;
  return errors;
}

#define CTATTN_LLAMA_FIXTURE(NS, K) NS::params_##K, NS::names, NS::sizes, NS::ranks, NS::input_##K, NS::output_##K
#define CTATTN_LLAMA_MODEL_FIXTURE(NS, K) CTATTN_LLAMA_FIXTURE(NS, K), NS::prompt, NS::generated_##K

// Decoding against forward: no difference with exact arithmetic; with fast arithmetic (a kernel may sum a
// sequence's rows in other orders than one row's), within the bound against PyTorch.
template <typename... Options>
inline constexpr bool exact_calls = ctattn::detail::arithmetic_of<Options...> == ctattn::arithmetic::exact;

// Rationale: the cases in five lists, each a constant evaluation of its own in the static test, so that each stays
// within Clang's default budget of steps (1,048,576): the layers, then each model in float and in double.
// `Options` go to every call (none: the build's default arithmetic, exact in the run-time tests and the backends'
// fast one in the backend tests).
template <typename... Options>
constexpr auto layer_results(const Options&... options) noexcept {
  namespace fx = ctattn_fixtures::llama;
  constexpr auto half = ctattn::rotary_layout::rotate_half;
  const double f = float_bound;
  const double d = double_bound;
  const auto ai32 = layer_errors<attention<float>>(CTATTN_LLAMA_FIXTURE(fx::attention_interleaved, f32), options...);
  const auto ai64 = layer_errors<attention<double>>(CTATTN_LLAMA_FIXTURE(fx::attention_interleaved, f64), options...);
  const auto ah32 =
      layer_errors<attention<float, half>>(CTATTN_LLAMA_FIXTURE(fx::attention_rotate_half, f32), options...);
  const auto ah64 =
      layer_errors<attention<double, half>>(CTATTN_LLAMA_FIXTURE(fx::attention_rotate_half, f64), options...);
  const auto b32 = layer_errors<block<float>>(CTATTN_LLAMA_FIXTURE(fx::block, f32), options...);
  const auto b64 = layer_errors<block<double>>(CTATTN_LLAMA_FIXTURE(fx::block, f64), options...);
  const double sf = exact_calls<Options...> ? 0 : f;
  const double sd = exact_calls<Options...> ? 0 : d;
  return std::array{
      result{"llama_attention interleaved, float", ai32[0], f},
      result{"llama_attention interleaved, double", ai64[0], d},
      result{"llama_attention interleaved, float, step", ai32[1], sf},
      result{"llama_attention interleaved, double, step", ai64[1], sd},
      result{"llama_attention rotate_half, float", ah32[0], f},
      result{"llama_attention rotate_half, double", ah64[0], d},
      result{"llama_attention rotate_half, float, step", ah32[1], sf},
      result{"llama_attention rotate_half, double, step", ah64[1], sd},
      result{"llama_block, float", b32[0], f},
      result{"llama_block, double", b64[0], d},
      result{"llama_block, float, step", b32[1], sf},
      result{"llama_block, double, step", b64[1], sd},
  };
}

// One model's cases: tied or not, in float or double.
template <bool Tied, typename T, typename... Options>
constexpr auto model_results(const Options&... options) noexcept {
  namespace fx = ctattn_fixtures::llama;
  constexpr bool f32 = std::is_same_v<T, float>;
  const double bound = f32 ? model_float_bound : model_double_bound;
  const auto errors = [&] {
    if constexpr (Tied && f32) {
      return model_errors<model<T, true>>(CTATTN_LLAMA_MODEL_FIXTURE(fx::model_tied, f32), options...);
    } else if constexpr (Tied) {
      return model_errors<model<T, true>>(CTATTN_LLAMA_MODEL_FIXTURE(fx::model_tied, f64), options...);
    } else if constexpr (f32) {
      return model_errors<model<T, false>>(CTATTN_LLAMA_MODEL_FIXTURE(fx::model_untied, f32), options...);
    } else {
      return model_errors<model<T, false>>(CTATTN_LLAMA_MODEL_FIXTURE(fx::model_untied, f64), options...);
    }
  }();
  constexpr const char* names[2][2][3] = {
      {{"llama_transformer untied, double", "llama_transformer untied, double, step",
        "llama_transformer untied, double, greedy tokens differing"},
       {"llama_transformer untied, float", "llama_transformer untied, float, step",
        "llama_transformer untied, float, greedy tokens differing"}},
      {{"llama_transformer tied, double", "llama_transformer tied, double, step",
        "llama_transformer tied, double, greedy tokens differing"},
       {"llama_transformer tied, float", "llama_transformer tied, float, step",
        "llama_transformer tied, float, greedy tokens differing"}}};
  const auto& name = names[Tied ? 1 : 0][f32 ? 1 : 0];
  return std::array{result{name[0], errors[0], bound}, result{name[1], errors[1], exact_calls<Options...> ? 0 : bound},
                    result{name[2], errors[2], 0}};
}

// Every case, as one list (the run-time and backend tests).
template <typename... Options>
constexpr auto results(const Options&... options) noexcept {
  const auto layers = layer_results(options...);
  const std::array models{model_results<true, float>(options...), model_results<true, double>(options...),
                          model_results<false, float>(options...), model_results<false, double>(options...)};
  std::array<result, layers.size() + 4 * 3> all{};
  std::size_t i = 0;
  for (const result& r : layers) all[i++] = r;
  for (const auto& m : models) {
    for (const result& r : m) all[i++] = r;
  }
  return all;
}

}  // namespace ctattn_test::llama_cases
