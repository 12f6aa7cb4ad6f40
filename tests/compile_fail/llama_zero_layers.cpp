// Rule: a llama model has at least one block
// expected-error: ctattn: the count \(parts, heads, tokens\) must be at least 1
// expected-rule: shape_error::count_must_be_positive<ctattn::op::llama_attention, ctattn::count<0(UL)?> ?>
#include <ctattn/layers.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::llama_transformer<float, 32, 16, 0, 4, 2, 24, 8> m{};  // <- mistake
#else
inline const ctattn::llama_transformer<float, 32, 16, 2, 4, 2, 24, 8> m{};
#endif

float use() { return m.forward(std::array<int, 3>{1, 2, 3})(0, 0); }
