// Rule: a key/value cache holds Capacity tokens: a constant position must be below the capacity
// expected-error: ctattn: a key/value cache holds Capacity tokens, at positions 0 to Capacity - 1
// expected-rule: shape_error::position_must_fit_cache<ctattn::op::kv_cache, ctattn::count<4(UL)?>, ctattn::count<4(UL)?> ?>
#include <ctattn/ctattn.hpp>

inline ctattn::kv_cache<float, 4, 8> cache{};
inline const ctattn::matrix<float, 1, 8> k{}, v{};

void use() {
#ifdef CTATTN_COMPILE_FAIL
  cache.append<4>(k, v);  // <- mistake
#else
  cache.append<3>(k, v);
#endif
}
