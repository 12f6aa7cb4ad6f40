// Rule: a weight's layout is part of its type: a matrix exported from PyTorch (out x in) is never taken for the
// reference text's in x out, or back, even when the sizes would allow a silent transpose.
// This mistake is caught by the weight's type itself (no ctattn rule is involved): the compilers' own conversion
// error names both shapes on its first line.
// expected-error: (cannot convert|no viable conversion|could not convert).*matrix<float, d_k
// expected-rule: matrix<float, d_k\{.*24.*d_model\{.*16
#include <ctattn/ctattn.hpp>

struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};

// torch.rand(24, 16) as stored: 24 outputs x 16 inputs.
inline const ctattn::matrix<float, d_k{24}, d_model{16}> torch_weight{};

float use() {
#ifdef CTATTN_COMPILE_FAIL
  ctattn::linear<float, d_model{16}, d_k{24}, ctattn::in_by_out> w{.weight = torch_weight};  // <- mistake
#else
  ctattn::linear<float, d_model{16}, d_k{24}, ctattn::out_by_in> w{.weight = torch_weight};
#endif
  return w.weight(0, 0);
}
