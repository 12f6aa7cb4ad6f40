// Rule: greedy decoding's ids are of a type that holds every id of the model's vocabulary
// expected-error: ctattn: the generated ids' element type cannot hold every id of the model's vocabulary
// expected-rule: shape_error::generated_ids_must_hold_vocabulary<ctattn::op::generate_greedy, unsigned char, ctattn::dim<ctattn::unnamed, 300> ?>
#include <array>
#include <cstdint>

#include <ctattn/layers.hpp>

using model_type = ctattn::llama_transformer<float, 300, 16, 1, 4, 2, 24, 8>;
inline const model_type model{};
#ifdef CTATTN_COMPILE_FAIL
using id_type = std::uint8_t;  // ids up to 299 do not fit a byte
#else
using id_type = std::uint16_t;
#endif

ctattn::greedy_generation use() {
  model_type::decode_state<8> state{};
  model_type::logits_row logits{};
  std::array<id_type, 4> ids{};
  const auto ignore = [](std::size_t, const auto&) {};
  return ctattn::generate_greedy(model, state, logits, std::array{1, 2}, ids, ignore);  // <- mistake
}
