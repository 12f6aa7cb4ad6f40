// Rule: parameters are walked on a model object (a std::unique_ptr to one is dereferenced first)
// expected-error: ctattn: parameters are walked and loaded on a model object
// expected-rule: shape_error::parameters_need_a_model<ctattn::op::parameters, std::unique_ptr<ctattn::layer_norm<float, 8(UL)?(, true)?> ?(, std::default_delete<ctattn::layer_norm<float, 8(UL)?(, true)?> ?> ?)?>, false>
#include <ctattn/layers.hpp>

#include <memory>

inline const auto model = std::make_unique<ctattn::layer_norm<float, 8>>();

std::size_t use() {
#ifdef CTATTN_COMPILE_FAIL
  return ctattn::parameter_count(model);  // <- mistake
#else
  return ctattn::parameter_count(*model);
#endif
}
