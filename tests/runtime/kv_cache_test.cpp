// Decoding with a key/value cache at run time (exact arithmetic): tests/support/kv_cache_cases.hpp.
#include "catch.hpp"
#include "support/kv_cache_cases.hpp"

namespace cases = ctattn_test::kv_cache_cases;

TEST_CASE("decoding with a key/value cache gives causal attention row by row at run time", "[kv_cache]") {
  CHECK(cases::multi_head_decoding_matches());
  CHECK(cases::rotary_decoding_matches());
  CHECK(cases::alibi_decoding_matches());
  CHECK(cases::encoder_layer_decoding_matches());
  CHECK(cases::decoder_layers_decoding_match());
}

TEST_CASE("a full key/value cache refuses a token and changes nothing", "[kv_cache]") {
  CHECK(cases::full_cache_refuses());
  CHECK(cases::constant_positions());
}
