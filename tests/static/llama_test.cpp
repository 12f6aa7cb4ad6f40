// The llama-style layers at compile time: each loaded from PyTorch's state_dict through the parameter walk (names,
// order and shapes must be llama2.c's) and checked against PyTorch's output, token-by-token decoding against the
// whole sequence (the same bits), and greedy decoding against PyTorch's token ids (tests/support/llama_cases.hpp).
#include "support/llama_cases.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ctattn/layers.hpp>

namespace {

namespace cases = ctattn_test::llama_cases;

// Every case; a failure names the index of the first one off its bound (one constant evaluation per list).
constexpr auto layer_results = cases::layer_results();
static_assert(cases::first_failure(layer_results) == layer_results.size());
constexpr auto tied_float = cases::model_results<true, float>();
static_assert(cases::first_failure(tied_float) == tied_float.size());
constexpr auto tied_double = cases::model_results<true, double>();
static_assert(cases::first_failure(tied_double) == tied_double.size());
constexpr auto untied_float = cases::model_results<false, float>();
static_assert(cases::first_failure(untied_float) == untied_float.size());
constexpr auto untied_double = cases::model_results<false, double>();
static_assert(cases::first_failure(untied_double) == untied_double.size());

// stories260K's shape (llama2.c: dim 64, 5 layers, 8 heads over 4 key/value heads, vocabulary 512, hidden 172,
// 512 positions): its heads, parameter count and footprint (its names: tests/runtime/llama_test.cpp).
using stories260k = ctattn::llama_transformer<float, 512, 64, 5, 8, 4, 172, 512>;
static_assert(stories260k::block_type::attention_type::head_dim == 8);
static_assert(stories260k::block_type::attention_type::key_value_width == 32);
constexpr std::size_t stories260k_parameters =
    512 * 64 + 5 * (64 * 64 + 2 * 32 * 64 + 64 * 64 + 3 * 64 * 172 + 2 * 64) + 64;
static_assert(stories260k_parameters == 260'032);
// Untied, the head's own weight comes last.
using untied = ctattn::llama_transformer<float, 32, 16, 2, 4, 2, 24, 8, false>;
static_assert(ctattn::parameter_name_at(untied{}, 20).view() == "output.weight");
// The settings beside the tensors: heads, key/value heads, every norm's eps (llama2.c's 1e-5).
static_assert([] {
  cases::block<float> b{};
  std::size_t heads = 0;
  std::size_t kv_heads = 0;
  std::size_t eps = 0;
  ctattn::for_each_setting(b, [&](std::string_view name, const ctattn::setting_entry& e) {
    if (name == "attention.n_heads") heads = static_cast<std::size_t>(e.number);
    if (name == "attention.n_kv_heads") kv_heads = static_cast<std::size_t>(e.number);
    if (name.ends_with("norm.eps") && e.number == static_cast<double>(1e-5f)) ++eps;
  });
  return heads == 4 && kv_heads == 2 && eps == 2;
}());

// Footprints: the rotary table counts once among the weights; the decode state is one cache per layer.
static_assert(ctattn::layer_footprint<cases::attention<float>, ctattn::matrix<float, 6, 16>>.weight_bytes ==
              sizeof(cases::attention<float>) + 2 * 8 * 2 * sizeof(float));
static_assert(sizeof(stories260k::decode_state<512>) >= 5 * 2 * 512 * 32 * sizeof(float));
static_assert(ctattn::layer_footprint<stories260k, std::array<int, 16>>.weight_bytes ==
              sizeof(stories260k) + 2 * 512 * 4 * sizeof(float));

// Decoding's footprint: the model and its table in flash, the state (one cache per layer) and one step's stack in
// RAM; the scores row grows with the capacity. A firmware image asserts its budget so: stories260K decoding 64
// tokens fits in 96 KB of RAM.
static_assert(stories260k::decode_footprint<512>().workspace_bytes == sizeof(stories260k::decode_state<512>));
static_assert(stories260k::decode_footprint<512>().weight_bytes == sizeof(stories260k) + 2 * 512 * 4 * sizeof(float));
static_assert(stories260k::decode_footprint<512>().output_bytes == 512 * sizeof(float));
static_assert(stories260k::decode_footprint<64>().stack_bytes < stories260k::decode_footprint<512>().stack_bytes);
static_assert(stories260k::decode_footprint<64>().ram_bytes() < 96 * 1024);

// A token id outside the vocabulary changes nothing and says so.
static_assert([] {
  const cases::model<float, true> m{};
  cases::model<float, true>::decode_state<4> state{};
  cases::model<float, true>::logits_row logits{};
  return m.step(32, state, logits) == ctattn::decode_status::token_outside_vocabulary &&
         m.step(-1, state, logits) == ctattn::decode_status::token_outside_vocabulary && state.length() == 0 &&
         m.step(3, state, logits) == ctattn::decode_status::decoded && state.length() == 1;
}());
// A full cache changes nothing and says so.
static_assert([] {
  const cases::model<float, true> m{};
  cases::model<float, true>::decode_state<2> state{};
  cases::model<float, true>::logits_row logits{};
  return m.step(1, state, logits) == ctattn::decode_status::decoded &&
         m.step(2, state, logits) == ctattn::decode_status::decoded &&
         m.step(3, state, logits) == ctattn::decode_status::cache_full && state.length() == 2;
}());
// Any integer type of id: a char, an id past 2^32 (which must not wrap into the vocabulary on a 32-bit core).
static_assert([] {
  const cases::model<float, false> m{};
  cases::model<float, false>::decode_state<4> state{};
  cases::model<float, false>::logits_row logits{};
  return m.step(std::int64_t{1} << 32 | 1, state, logits) == ctattn::decode_status::token_outside_vocabulary &&
         m.step(char{5}, state, logits) == ctattn::decode_status::decoded &&
         m.step(std::uint8_t{31}, state, logits) == ctattn::decode_status::decoded && state.length() == 2;
}());

// A mask among the options adds to the causal one, in `forward` and in `step` alike: with the keys past 3 padded
// away, row 5 differs from the unmasked one, and decoding gives the masked rows.
static_assert([] {
  const auto layer = ctattn_test::numbered<cases::attention<float>>();
  const auto x = ctattn::from_array(ctattn_fixtures::llama::attention_interleaved::input_f32);
  const auto plain = ctattn::forward(layer, x);
  const auto padded = ctattn::forward(layer, x, ctattn::key_padding_length{3});
  cases::attention<float>::cache_type<6> cache{};
  bool same = true;
  for (std::size_t t = 0; t < 6; ++t) {
    ctattn::matrix<float, 1, 16> row{};
    ctattn::matrix<float, 1, 16> out{};
    for (std::size_t j = 0; j < 16; ++j) row.elements[0][j] = x.elements[t][j];
    same = layer.step(row, cache, out, ctattn::key_padding_length{3}) && same;
    for (std::size_t j = 0; j < 16; ++j) same = same && out.elements[0][j] == padded.elements[t][j];
  }
  return same && plain.elements[5][0] != padded.elements[5][0] && plain.elements[2][0] == padded.elements[2][0];
}());

// generate_greedy: the steps a hand-written loop takes (the prompt, then each pick fed back but the last), each
// step's logits seen once in order; then what it does at the edges.
static_assert([] {
  const auto m = ctattn_test::numbered<cases::model<float, true>>();
  using model_type = cases::model<float, true>;
  model_type::decode_state<8> by_hand{};
  model_type::logits_row row{};
  std::array<std::size_t, 6> hand{};  // the argmax after each step; the last 4 are the generated ids
  const std::array<int, 3> prompt{3, 17, 30};
  std::size_t next = 0;
  for (std::size_t t = 0; t < 6; ++t) {
    if (m.step(t < 3 ? static_cast<std::size_t>(prompt[t]) : next, by_hand, row) != ctattn::decode_status::decoded)
      return false;
    next = ctattn::greedy_token(row);
    hand[t] = next;
  }
  model_type::decode_state<8> state{};
  std::array<std::uint16_t, 4> ids{};
  std::size_t seen = 0;
  std::array<std::size_t, 6> picked_at{};
  const auto run = ctattn::generate_greedy(m, state, row, prompt, ids, [&](std::size_t step, const auto& logits) {
    seen += step == seen ? 1 : 100;
    if (step < 6) picked_at[step] = ctattn::greedy_token(logits);
  });
  bool same = run == ctattn::greedy_generation{4, ctattn::decode_status::decoded} && seen == 6 && state.length() == 6 &&
              hand[2] != hand[3];
  for (std::size_t t = 0; t < 6; ++t) same = same && picked_at[t] == hand[t];
  for (std::size_t t = 0; t < 4; ++t) same = same && ids[t] == hand[t + 2];
  return same;
}());
static_assert([] {
  using model_type = cases::model<float, false>;
  const auto m = ctattn_test::numbered<model_type>();
  model_type::logits_row row{};
  const auto nothing = [](std::size_t, const auto&) {};
  // A full cache stops it: 3 tokens hold the prompt's 2 steps and the first pick's; the second pick is not fed.
  model_type::decode_state<3> small{};
  std::array<std::size_t, 4> ids{};
  const auto full = ctattn::generate_greedy(m, small, row, std::array{1, 2}, ids, nothing);
  // A prompt id outside the vocabulary stops it before that id, changing nothing; an int64 id past 2^32 too.
  model_type::decode_state<8> s1{};
  const auto outside = ctattn::generate_greedy(m, s1, row, std::array{1, 32, 3}, ids, nothing);
  model_type::decode_state<8> s2{};
  const auto wide =
      ctattn::generate_greedy(m, s2, row, std::array<std::int64_t, 1>{std::int64_t{1} << 32 | 1}, ids, nothing);
  // An empty prompt does nothing; no ids wanted is a prefill of the whole prompt.
  model_type::decode_state<8> s3{};
  const auto empty = ctattn::generate_greedy(m, s3, row, std::array<int, 0>{}, ids, nothing);
  model_type::decode_state<8> s4{};
  std::array<std::size_t, 0> none{};
  const auto prefill = ctattn::generate_greedy(m, s4, row, std::array{4, 5, 6}, none, nothing);
  using ctattn::decode_status;
  return full == ctattn::greedy_generation{2, decode_status::cache_full} && small.length() == 3 &&
         outside == ctattn::greedy_generation{0, decode_status::token_outside_vocabulary} && s1.length() == 1 &&
         wide == ctattn::greedy_generation{0, decode_status::token_outside_vocabulary} && s2.length() == 0 &&
         empty == ctattn::greedy_generation{0, decode_status::decoded} && s3.length() == 0 &&
         prefill == ctattn::greedy_generation{0, decode_status::decoded} && s4.length() == 3;
}());

// generate_greedy checks a prompt's ids itself, in their own type, before its step sees them: a model whose step
// takes any std::size_t (as a step that checked nothing would) still gets no id outside the vocabulary, and an
// int64 id past 2^32 is refused where a conversion to a 32-bit std::size_t would have made it 1.
namespace unchecked {
struct model {
  static constexpr std::size_t vocabulary = 8;
  struct state {
    std::size_t seen = 0;
    std::size_t last = 0;
  };
  using logits_row = ctattn::matrix<float, 1, 8>;
  constexpr ctattn::decode_status step(std::size_t token, state& s, logits_row& logits) const noexcept {
    s.last = token;
    ++s.seen;
    for (std::size_t j = 0; j < 8; ++j) logits.elements[0][j] = j == (token + 1) % 8 ? 1.0f : 0.0f;
    return ctattn::decode_status::decoded;
  }
};
}  // namespace unchecked
static_assert([] {
  const unchecked::model m{};
  unchecked::model::logits_row row{};
  std::array<std::uint8_t, 3> ids{};
  const auto nothing = [](std::size_t, const auto&) {};
  unchecked::model::state s1{}, s2{}, s3{}, s4{};
  const auto eight = ctattn::generate_greedy(m, s1, row, std::array{1, 8}, ids, nothing);
  const auto negative = ctattn::generate_greedy(m, s2, row, std::array{2, -1}, ids, nothing);
  const auto wide =
      ctattn::generate_greedy(m, s3, row, std::array<std::int64_t, 2>{3, std::int64_t{1} << 32 | 1}, ids, nothing);
  const auto inside = ctattn::generate_greedy(m, s4, row, std::array{5, 7}, ids, nothing);
  using ctattn::decode_status;
  return eight == ctattn::greedy_generation{0, decode_status::token_outside_vocabulary} && s1.seen == 1 &&
         negative == ctattn::greedy_generation{0, decode_status::token_outside_vocabulary} && s2.seen == 1 &&
         wide == ctattn::greedy_generation{0, decode_status::token_outside_vocabulary} && s3.seen == 1 &&
         inside == ctattn::greedy_generation{3, decode_status::decoded} && s4.seen == 4 && ids[0] == 0 && ids[1] == 1 &&
         ids[2] == 2;
}());

// Greedy decoding's pick: the first of equal largest logits, as torch.argmax.
static_assert(ctattn::greedy_token(ctattn::matrix<float, 1, 4>{{{1, 3, 3, 2}}}) == 1);

}  // namespace
