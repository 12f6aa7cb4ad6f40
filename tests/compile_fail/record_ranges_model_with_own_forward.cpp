// Rule: ctattn::record_ranges follows a model's members run in turn; a model with a forward of its own is refused
// expected-error: ctattn: ctattn::quantize and ctattn::record_ranges follow a model's members run in turn, and this model has a forward of its own
// expected-rule: shape_error::model_forward_must_be_its_members<ctattn::op::record_ranges, residual_mlp, false>
#include <ctattn/quantized/ranges.hpp>

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
inline const residual_mlp model{};
inline const ctattn::matrix<float, 3, 4> x{};

float use() {
  ctattn::activation_ranges<8> ranges{};
  const auto y = ctattn::record_ranges(model, x, ranges);  // <- mistake
  return y(0, 0);
}
