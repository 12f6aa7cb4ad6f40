// Rule: a layer of one's own gives ctattn::quantize an int8 layer: what its int8_form returns has an output quantization, a forward and a footprint
// expected-error: ctattn: this layer's int8_form\(self, at\) returns no int8 layer
// expected-rule: shape_error::int8_form_must_be_an_int8_layer<ctattn::op::quantize, halving, qhalving<
#include <cstddef>

#include <ctattn/layers.hpp>
#include <ctattn/quantized/model.hpp>

// The int8 form of halving: each int8 element halved into the output's quantization.
template <ctattn::quantization QIn, ctattn::quantization QOut>
struct qhalving {
  static constexpr ctattn::quantization input_quantization = QIn;
  static constexpr ctattn::quantization output_quantization = QOut;
  static constexpr ctattn::math::quantized_multiplier half =
      ctattn::math::quantize_multiplier(0.5 * QIn.scale() / QOut.scale());
  template <ctattn::QuantizedMatrix X>
  constexpr auto forward(const X& x) const noexcept {
    ctattn::basic_qmatrix<X::row_extent, X::column_extent, QOut> y;
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t c = 0; c < X::cols; ++c) {
        y.elements[r][c] = ctattn::requantize(x.elements[r][c] - QIn.zero_point, half, QOut.zero_point);
      }
    }
    return y;
  }
#ifdef CTATTN_COMPILE_FAIL
  static constexpr ctattn::footprint footprint() noexcept {  // not footprint_of<X>(), which the int8 chain composes
    return {0, 4, 4, 0, 0};
  }
#else
  template <ctattn::QuantizedMatrix X>
  static constexpr ctattn::footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(ctattn::basic_qmatrix<X::row_extent, X::column_extent, QOut>), 0, 0};
  }
#endif
};

// A layer of one's own (x / 2) with an int8 form.
struct halving {
  using value_type = float;
  static constexpr bool keeps_width = true;
  template <ctattn::FixedMatrix X, typename... Options>
  constexpr X forward(const X& x, const Options&...) const noexcept {
    X y = x;
    for (auto& row : y.elements) {
      for (auto& e : row) e *= 0.5f;
    }
    return y;
  }
  template <ctattn::FixedMatrix X>
  static constexpr ctattn::footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(X), 0, 0};
  }
  friend constexpr auto parameters(const halving&) noexcept { return boost::hana::make_tuple(); }
  friend constexpr auto parameters(halving&) noexcept { return boost::hana::make_tuple(); }
  template <typename At>
  friend constexpr auto int8_form(const halving&, At) noexcept {
    return qhalving<At::input_quantization, At::output_quantization>{};
  }
};

struct classifier : ctattn::model<classifier> {
  BOOST_HANA_DEFINE_STRUCT(classifier, (halving, half), (ctattn::linear<float, 4, 2, ctattn::out_by_in, true>, out));
};
inline constexpr ctattn::named_range ranges[] = {{"input", {-1.0, 1.0}}, {"half", {-0.5, 0.5}}, {"out", {-3.0, 3.0}}};
constexpr auto q = ctattn::quantize<ranges>(classifier{});  // <- mistake

int use() { return static_cast<int>(sizeof(q)); }
