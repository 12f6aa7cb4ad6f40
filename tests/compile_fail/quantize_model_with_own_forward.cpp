// Rule: ctattn::quantize follows a model's members run in turn; a model with a forward of its own is refused
// expected-error: ctattn: ctattn::quantize and ctattn::record_ranges follow a model's members run in turn, and this model has a forward of its own
// expected-rule: shape_error::model_forward_must_be_its_members<ctattn::op::quantize, residual_mlp, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

struct residual_mlp : ctattn::model<residual_mlp> {
  BOOST_HANA_DEFINE_STRUCT(residual_mlp, (ctattn::linear<float, 4, 4, ctattn::out_by_in, true>, inner),
                           (ctattn::relu, act));
#ifdef CTATTN_COMPILE_FAIL
  // x + act(inner(x)): not the members run in turn
  template <typename X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    return ctattn::add(x, ctattn::forward(act, ctattn::forward(inner, x, options...)));
  }
#endif
};
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}}, {"inner", {-2.0, 2.0}}, {"act", {0.0, 2.0}}};
constexpr auto q = ctattn::quantize<ranges>(residual_mlp{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
