// Rule: ctattn::quantize maps every float layer of a model to its int8 form; a layer without one stops the build
// expected-error: ctattn: ctattn::quantize has no int8 form of this layer \(the layer below\); a layer of your own gives one by a friend int8_form\(self, at\)
// expected-rule: shape_error::layer_needs_an_int8_form<ctattn::op::quantize, doubling, false>
#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

// A layer of one's own (x + x) without an int8 form (no friend int8_form: tests/support/own_layer_cases.hpp has one).
struct doubling {
  using value_type = float;
  static constexpr std::size_t input_extent = 4;
  static constexpr std::size_t output_extent = 4;
  template <ctattn::FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    return ctattn::add(x, x);
  }
  friend constexpr auto parameters(const doubling&) noexcept { return boost::hana::make_tuple(); }
  friend constexpr auto parameters(doubling&) noexcept { return boost::hana::make_tuple(); }
  friend constexpr bool operator==(const doubling&, const doubling&) = default;
};

#ifdef CTATTN_COMPILE_FAIL
using middle = doubling;  // no int8 form
#else
using middle = ctattn::layer_norm<float, 4>;
#endif
struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (middle, normed), (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}}, {"normed", {-2.0, 2.0}}, {"out", {-3.0, 3.0}}};
constexpr auto q = ctattn::quantize<ranges>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
