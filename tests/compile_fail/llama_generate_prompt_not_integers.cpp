// Rule: greedy decoding's prompt is token ids, integers
// expected-error: ctattn: token ids index the embedding table's rows, so they must be integers
// expected-rule: shape_error::token_ids_must_be_integers<ctattn::op::generate_greedy, float>
#include <array>
#include <cstdint>

#include <ctattn/layers.hpp>

using model_type = ctattn::llama_transformer<float, 32, 16, 1, 4, 2, 24, 8>;
inline const model_type model{};
#ifdef CTATTN_COMPILE_FAIL
using prompt_type = std::array<float, 2>;  // ids read from a tensor of floats
#else
using prompt_type = std::array<int, 2>;
#endif

ctattn::greedy_generation use() {
  model_type::decode_state<8> state{};
  model_type::logits_row logits{};
  std::array<std::uint16_t, 4> ids{};
  const prompt_type prompt{1, 2};
  const auto ignore = [](std::size_t, const auto&) {};
  return ctattn::generate_greedy(model, state, logits, prompt, ids, ignore);  // <- mistake
}
