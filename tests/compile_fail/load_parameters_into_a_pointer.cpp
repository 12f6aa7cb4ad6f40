// Rule: weights are loaded into a model object (a std::unique_ptr to one is dereferenced first)
// expected-error: ctattn: parameters are walked and loaded on a model object
// expected-rule: shape_error::parameters_need_a_model<ctattn::op::parameters, std::unique_ptr<ctattn::layer_norm<float, 8(UL)?(, true)?> ?(, std::default_delete<ctattn::layer_norm<float, 8(UL)?(, true)?> ?> ?)?>, false>
#include <ctattn/host/import.hpp>
#include <ctattn/layers.hpp>

#include <memory>

bool use() {
  auto model = std::make_unique<ctattn::layer_norm<float, 8>>();
#ifdef CTATTN_COMPILE_FAIL
  return !ctattn::host::load_parameters(model, "norm.safetensors");  // <- mistake
#else
  return !ctattn::host::load_parameters(*model, "norm.safetensors");
#endif
}
