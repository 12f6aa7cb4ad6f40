// Rule: a layer's footprint is its own to say
// expected-error: ctattn: a layer's footprint is its own to say
// expected-rule: shape_error::layer_must_declare_its_footprint<ctattn::op::layer, scale, ctattn::basic_matrix<float, 3(UL)?, 8(UL)?>, false>
#include <ctattn/layers.hpp>

// A layer of one's own (tests/static/own_layer_test.cpp has the whole protocol), its `footprint_of` left out.
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
  template <ctattn::FixedMatrix X>
  static constexpr ctattn::footprint footprint_of() noexcept {
    return {sizeof(scale), sizeof(X), sizeof(X), 0, 0};
  }
#endif
  friend constexpr auto parameters(scale&) noexcept { return boost::hana::make_tuple(); }
  friend constexpr auto parameters(const scale&) noexcept { return boost::hana::make_tuple(); }
};

std::size_t use() {
  return ctattn::layer_footprint<scale, ctattn::matrix<float, 3, 8>>.stack_bytes;  // <- mistake
}
