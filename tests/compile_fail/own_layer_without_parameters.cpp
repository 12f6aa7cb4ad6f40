// Rule: a layer of a model lists its parameters by name
// expected-error: ctattn: a layer of a model lists its parameters by name
// expected-rule: shape_error::layer_must_list_its_parameters<ctattn::op::parameters, scale, false>
#include <ctattn/layers.hpp>

// A layer of one's own (tests/static/own_layer_test.cpp has the whole protocol), its `parameters` left out.
struct scale {
  using value_type = float;
  static constexpr bool keeps_width = true;
  float factor = 2;
  template <ctattn::FixedMatrix X, typename... Options>
  constexpr X forward(const X& x, const Options&...) const noexcept {
    X y = x;
    for (auto& row : y.elements) {
      for (auto& e : row) e *= factor;
    }
    return y;
  }
#ifndef CTATTN_COMPILE_FAIL
  friend constexpr auto parameters(scale&) noexcept { return boost::hana::make_tuple(); }
  friend constexpr auto parameters(const scale&) noexcept { return boost::hana::make_tuple(); }
#endif
};

struct net : ctattn::model<net> {
  BOOST_HANA_DEFINE_STRUCT(net, (ctattn::linear<float, 4, 8>, fc), (scale, gain));
};

std::size_t use() {
  const net n{};
  return ctattn::parameter_count(n);  // <- mistake
}
