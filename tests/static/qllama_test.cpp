// SPDX-License-Identifier: BSL-1.0
// The llama-style model in int8 (ctattn/quantized/llama.hpp), at compile time: ranges recorded in a constant
// expression under the names the int8 layers read, ctattn::quantize's qllama_transformer decoding token by token with
// the int8 forward's bits, its logits near the float model's, greedy decoding picking the float model's tokens, and
// its footprints (tests/support/qllama_cases.hpp; tests/runtime/qllama_test.cpp runs the same at run time).

#include <array>
#include <cstddef>

#include "support/qllama_cases.hpp"

namespace {
namespace cases = ctattn_test::qllama_cases;

template <bool Tied>
using int8_model = cases::int8_model<Tied>;

// What ctattn::quantize made of the float model: the int8 model itself, its blocks, norms and head.
static_assert(int8_model<true>::tied && !int8_model<false>::tied);
static_assert(int8_model<true>::layer_count == 2 && int8_model<true>::vocabulary == 16);
static_assert(int8_model<true>::attention_type::heads == 2 && int8_model<true>::attention_type::key_value_heads == 1);
static_assert(int8_model<true>::attention_type::head_dim == 4);

// Calibration: every point named, the recorded logits forward's.
static_assert(cases::records_every_point<true>());
static_assert(cases::records_every_point<false>());
static_assert(cases::query_range_holds_rotation<true>());

// The int8 step over the whole prompt gives the int8 forward's rows, bit for bit.
static_assert(cases::step_matches_forward<int8_model<true>, 8>(cases::quantized<true>, cases::prompt));
static_assert(cases::step_matches_forward<int8_model<false>, 8>(cases::quantized<false>, cases::prompt));

// The int8 logits near the float model's: within 5% of the largest float logit.
constexpr cases::logits_error tied_error = cases::int8_logits_error<true>();
static_assert(tied_error.error <= cases::logits_bound * tied_error.largest);
constexpr cases::logits_error untied_error = cases::int8_logits_error<false>();
static_assert(untied_error.error <= cases::logits_bound * untied_error.largest);

// Greedy decoding in int8 picks the float model's tokens, where the float margins are larger than twice the int8
// error (so that the comparison says something): after each prefix of the prompt, and decoding freely from its first
// three tokens (the untied head counts up; the tied one repeats the last token, its own row being the closest).
static_assert(cases::greedy_after_each_prefix<true>().rows_with_large_margins == 8);
static_assert(cases::greedy_after_each_prefix<true>().differing == 0);
static_assert(cases::greedy_after_each_prefix<false>().rows_with_large_margins == 8);
static_assert(cases::greedy_after_each_prefix<false>().differing == 0);
constexpr cases::greedy_run tied_greedy = cases::greedy<true>();
static_assert(tied_greedy.smallest_margin > 2 * tied_error.error);
static_assert(tied_greedy.int8_tokens == tied_greedy.float_tokens);
constexpr cases::greedy_run untied_greedy = cases::greedy<false>();
static_assert(untied_greedy.smallest_margin > 2 * untied_error.error);
static_assert(untied_greedy.int8_tokens == untied_greedy.float_tokens);
static_assert(untied_greedy.int8_tokens == std::array<std::size_t, 5>{10, 11, 12, 13, 14});

// Refusals: ids outside the vocabulary, a full cache.
static_assert(cases::step_refuses<true>());

// A block quantized alone, as a single layer: its int8 step gives its int8 forward's rows.
static_assert(cases::block_step_matches_forward());

// Footprints: the model and its one rotary table in flash, the decode state, the logits row.
template <typename M, std::size_t C>
constexpr bool decode_footprint_is_sizeof() {
  constexpr ctattn::footprint f = M::template decode_footprint<C>();
  return f.weight_bytes == sizeof(M) + sizeof(typename M::attention_type::table_type) &&
         f.workspace_bytes == sizeof(typename M::template decode_state<C>) &&
         f.output_bytes == sizeof(typename M::logits_row) && f.input_bytes == 0 && f.stack_bytes > 0;
}
static_assert(decode_footprint_is_sizeof<int8_model<true>, 8>());
static_assert(decode_footprint_is_sizeof<int8_model<false>, 4>());
static_assert(sizeof(int8_model<true>::decode_state<8>) >= 2 * 8 * (4 + 4));  // 2 blocks, 8 tokens, key + value
static_assert(int8_model<true>::footprint_of<std::array<int, 8>>().output_bytes == 8 * 16);
}  // namespace
