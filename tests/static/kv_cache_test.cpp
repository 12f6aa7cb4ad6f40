// Decoding with a key/value cache at compile time: tests/support/kv_cache_cases.hpp.
#include "support/kv_cache_cases.hpp"

namespace {
namespace cases = ctattn_test::kv_cache_cases;
static_assert(cases::multi_head_decoding_matches());
static_assert(cases::full_cache_refuses());
static_assert(cases::rotary_decoding_matches());
static_assert(cases::alibi_decoding_matches());
static_assert(cases::constant_positions());
static_assert(cases::encoder_layer_decoding_matches());
static_assert(cases::decoder_layers_decoding_match());
}  // namespace
