// Rule: the encoder's output projected into a key/value cache for cross-attention must fit its capacity
// expected-error: ctattn: the memory \(the encoder's output\) has more rows than the key/value cache holds
// expected-rule: shape_error::memory_must_fit_cache<ctattn::op::kv_cache, ctattn::count<5(UL)?>, ctattn::count<4(UL)?> ?>
#include <ctattn/ctattn.hpp>

inline const ctattn::multi_head_attention_weights<float, 2, 8> cross{};
inline ctattn::kv_cache<float, 4, 8> source{};
inline const ctattn::matrix<float, 5, 8> long_memory{};
inline const ctattn::matrix<float, 4, 8> memory{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  ctattn::cache_memory(long_memory, cross, source);  // <- mistake
#else
  ctattn::cache_memory(memory, cross, source);
#endif
}
