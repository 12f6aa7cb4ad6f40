// A layer of one's own in int8 (docs/layers.md, "A layer of your own"): `channel_scale`
// (tests/support/own_layer_cases.hpp) gives its int8 form by a friend `int8_form(self, at)`, and ctattn::quantize
// puts what it returns in the int8 chain as it puts the library's layers: fed by the layer before, feeding the layer
// after, run by the chain's forward, counted in its footprint, inside a residual connection, between 16x8 layers, as
// a single layer, as a model's link. A second layer records a point inside itself (`record_points`) and its int8
// form reads that point back. Compiling this file is the test (run time: tests/runtime/own_layer_int8_test.cpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/hana/tuple.hpp>
#include <ctattn/layers.hpp>
#include <ctattn/layers/links.hpp>
#include <ctattn/quantized/links.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

#include "support/own_layer_cases.hpp"

namespace {

namespace cases = ctattn_test::own_layer_cases;
using cases::channel_scale;
using cases::qchannel_scale;

// Q(name): the quantization of the range `name` of a table.
template <const auto& Table>
constexpr ctattn::quantization q_at(std::string_view name) noexcept {
  return ctattn::quantization_for_range(ctattn::range_at(Table, name));
}

// --- The customization point is found, and only where it is given -----------------------------------------------

struct float_only_scale {  // the protocol without an int8 form
  using value_type = float;
  static constexpr bool keeps_width = true;
  template <ctattn::FixedMatrix X, typename... Options>
  constexpr X forward(const X& x, const Options&...) const noexcept {
    return x;
  }
};
static_assert(ctattn::HasInt8Form<channel_scale<float, 8>> && ctattn::HasInt8Form<const channel_scale<float, 8>&>);
static_assert(ctattn::Layer<float_only_scale> && !ctattn::HasInt8Form<float_only_scale>);
static_assert(ctattn::HasInt8Form<ctattn::layer_norm<float, 8>>);
static_assert(!ctattn::HasInt8Form<ctattn::linear<float, 4, 2, ctattn::in_by_out>>);

// --- Calibration records the layer's output under its path --------------------------------------------------------

static_assert(cases::recorded.size() == 5 && !cases::recorded.overflowed);
static_assert(cases::recorded.name(0) == "input" && cases::recorded.name(1) == "fc" &&
              cases::recorded.name(2) == "scale" && cases::recorded.name(3) == "head" &&
              cases::recorded.name(4) == "output");
// `scale` is the range of the float layer's outputs over the calibration set, as its own forward computes them.
static_assert([] {
  const auto& m = cases::float_model;
  const auto s0 = ctattn::forward(m.scale, ctattn::forward(m.fc, cases::calibration[0]));
  const auto s1 = ctattn::forward(m.scale, ctattn::forward(m.fc, cases::calibration[1]));
  const auto s2 = ctattn::forward(m.scale, ctattn::forward(m.fc, cases::calibration[2]));
  return *cases::recorded.find("scale") == ctattn::observed_range(s0, s1, s2);
}());

// --- What ctattn::quantize made of it ----------------------------------------------------------------------------

constexpr ctattn::quantization q_fc = q_at<cases::table>("fc");
constexpr ctattn::quantization q_scale = q_at<cases::table>("scale");
constexpr ctattn::quantization q_head = q_at<cases::table>("head");
using int8_scale = std::remove_cvref_t<decltype(cases::int8_net.layer<1>())>;
static_assert(std::is_same_v<int8_scale, qchannel_scale<8, q_fc, q_scale>>);
// Fed by the layer before, feeding the layer after: each layer's input quantization the previous one's output's.
static_assert(int8_scale::input_quantization == cases::int8_net.layer<0>().output_quantization);
static_assert(cases::int8_net.layer<2>().input_quantization == int8_scale::output_quantization);
static_assert(cases::int8_model::output_quantization == q_head);
// The channels' int8 weights: +-127 with scales of their own, 0 for the weight 0.
static_assert([] {
  constexpr std::int8_t expected[8] = {127, -127, 127, 127, -127, 127, -127, 0};
  for (std::size_t c = 0; c < 8; ++c) {
    if (cases::int8_net.layer<1>().weight[c] != expected[c]) return false;
  }
  return true;
}());

// --- The user's layer's int8 output is TFLite's MUL, from its definition -----------------------------------------

// An int8 element h (in `in`) times the float weight w, into `out`, from scratch: the weight's scale |w| / 127 and
// int8 value +-127 (scale 1 and 0 for w = 0), the multiplier s_in s_w / s_out in fixed point, (h - z_in) w_q times
// it with TFLite's roundings, plus z_out, clamped to int8.
constexpr std::int8_t reference(std::int8_t h, float w, ctattn::quantization in, ctattn::quantization out) noexcept {
  const double s_w = w == 0.0f ? 1.0 : static_cast<double>(w < 0.0f ? -w : w) / 127.0;
  const std::int32_t w_q = w > 0.0f ? 127 : (w < 0.0f ? -127 : 0);
  const auto m = ctattn::math::quantize_multiplier(in.scale() * s_w / out.scale());
  const std::int32_t v =
      ctattn::math::multiply_by_quantized_multiplier((std::int32_t{h} - in.zero_point) * w_q, m) + out.zero_point;
  return static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}
// On x's int8 form: every element of the user's int8 layer's output equals the reference; on the calibration
// inputs (within the recorded ranges, so nothing clamps) each is also within half a step of the real product of its
// input, as the int8 kernels' requantization rounds.
constexpr bool scale_matches_reference(const ctattn::matrix<float, 3, 4>& x, bool within_ranges) noexcept {
  const auto h = cases::int8_net.layer<0>().forward(ctattn::quantized_input<cases::int8_model>(x));
  const auto y = cases::int8_net.layer<1>().forward(h);
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t c = 0; c < 8; ++c) {
      if (y(r, c) != reference(h(r, c), cases::channel_weights[c], q_fc, q_scale)) return false;
      const double d = y.real(r, c) - h.real(r, c) * static_cast<double>(cases::channel_weights[c]);
      if (within_ranges && (d < 0 ? -d : d) > 0.5 * q_scale.scale() * (1 + 1e-9)) return false;
    }
  }
  return true;
}
static_assert(scale_matches_reference(cases::calibration[0], true));
static_assert(scale_matches_reference(cases::calibration[1], true));
static_assert(scale_matches_reference(cases::calibration[2], true));
static_assert(scale_matches_reference(cases::held_out, true));
static_assert(scale_matches_reference(cases::beyond, false));  // beyond the ranges: some outputs clamp

// --- The int8 model against the float model ----------------------------------------------------------------------

// The int8 model's forward on x's int8 form is its layers run in turn, and its output, dequantized, is within 3
// steps of its output quantization of the float model's, on the calibration inputs and on one held out within the
// recorded ranges (the input's and the three layers' roundings, each at most half a step of its own quantization,
// carried through the layers after it; the largest seen is 1.97 steps).
static_assert([] {
  const auto x_q = ctattn::quantized_input<cases::int8_model>(cases::held_out);
  const auto& q = cases::int8_net;
  return q.forward(x_q) == q.layer<2>().forward(q.layer<1>().forward(q.layer<0>().forward(x_q)));
}());
constexpr double tolerance = 3 * q_head.scale();
static_assert(ctattn::int8_error(cases::int8_net, cases::float_model, cases::calibration[0]) < tolerance);
static_assert(ctattn::int8_error(cases::int8_net, cases::float_model, cases::calibration[1]) < tolerance);
static_assert(ctattn::int8_error(cases::int8_net, cases::float_model, cases::calibration[2]) < tolerance);
static_assert(ctattn::int8_error(cases::int8_net, cases::float_model, cases::held_out) < tolerance);
// The int8 form is needed: with the channels' int8 weights all +127 (the weights' signs dropped), the model is far
// off (the check above can fail).
static_assert([] {
  auto q = cases::int8_net;
  auto& scale = const_cast<int8_scale&>(q.layer<1>());
  for (auto& w : scale.weight) w = 127;
  return ctattn::int8_error(q, cases::float_model, cases::held_out) > 10 * tolerance;
}());

// --- Its footprint joins the int8 model's -------------------------------------------------------------------------

using x_q_type = ctattn::qmatrix<3, 4, ctattn::quantization_for_range(ctattn::range_at(cases::table, "input"))>;
using h_type = ctattn::qmatrix<3, 8, q_fc>;
using s_type = ctattn::qmatrix<3, 8, q_scale>;
constexpr ctattn::footprint int8_fp = ctattn::layer_footprint<cases::int8_model, x_q_type>;
constexpr ctattn::footprint scale_fp = ctattn::layer_footprint<int8_scale, h_type>;
static_assert(scale_fp.weight_bytes == sizeof(int8_scale) && scale_fp.input_bytes == sizeof(h_type) &&
              scale_fp.output_bytes == sizeof(s_type) && scale_fp.stack_bytes == 0);
static_assert(int8_fp.weight_bytes == sizeof(cases::int8_model));
static_assert(int8_fp.stack_bytes ==
              ctattn::composed(
                  ctattn::layer_footprint<std::remove_cvref_t<decltype(cases::int8_net.layer<0>())>, x_q_type>,
                  scale_fp, ctattn::layer_footprint<std::remove_cvref_t<decltype(cases::int8_net.layer<2>())>, s_type>)
                  .stack_bytes);
static_assert(int8_fp.stack_bytes >= sizeof(h_type) + sizeof(s_type));

// --- The context its int8_form is given ------------------------------------------------------------------------

constexpr ctattn::parameter_name scale_path = [] {
  ctattn::parameter_name p{};
  p.append("scale");
  return p;
}();
using scale_context = ctattn::int8_context<cases::table, scale_path, q_fc>;
static_assert(scale_context::path == "scale" && scale_context::input_quantization == q_fc);
static_assert(scale_context::output_range == ctattn::range_at(cases::table, "scale"));
static_assert(scale_context::output_quantization == q_scale);
static_assert(scale_context::options == ctattn::quantize_options{});

// --- Inside a residual connection, between 16x8 layers, alone, as a link -------------------------------------------

// x + scale(x): the inner layer's path is `res.inner`, its output range recorded there.
struct residual_net : ctattn::model<residual_net> {
  BOOST_HANA_DEFINE_STRUCT(residual_net, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, fc),
                           (ctattn::residual<channel_scale<float, 8>>, res),
                           (ctattn::linear<float, 8, 2, ctattn::out_by_in>, head));
};
inline constexpr residual_net residual_model = [] {
  residual_net m{};
  m.fc = cases::float_model.fc;
  m.res.inner = cases::float_model.scale;
  m.head = cases::float_model.head;
  return m;
}();
inline constexpr auto residual_recorded = [] {
  ctattn::activation_ranges<8> ranges{};
  for (const auto& x : cases::calibration) (void)ctattn::record_ranges(residual_model, x, ranges);
  return ranges;
}();
inline constexpr auto residual_table = residual_recorded.table();
constexpr auto int8_residual = ctattn::quantize<residual_table>(residual_model);
using residual_inner = std::remove_cvref_t<decltype(int8_residual.layer<1>().inner)>;
static_assert(
    std::is_same_v<residual_inner, qchannel_scale<8, q_at<residual_table>("fc"), q_at<residual_table>("res.inner")>>);
static_assert(ctattn::int8_error(int8_residual, residual_model, cases::held_out) <
              3 * q_at<residual_table>("head").scale());

// A 16x8 model: the linear layers in 16x8, a conversion to int8 before the layer of one's own (which has no 16x8
// form) and back to int16 after it.
constexpr auto int16_net =
    ctattn::quantize<cases::table, ctattn::quantize_options{.activations = ctattn::activation_format::int16}>(
        cases::float_model);
using int16_model = std::remove_cvref_t<decltype(int16_net)>;
static_assert(std::is_same_v<std::remove_cvref_t<decltype(int16_net.layer<2>())>,
                             qchannel_scale<8, int16_net.layer<1>().output_quantization, q_scale>>);
static_assert(int16_model::first_layer::int16 && int16_net.layer<1>().int16 == false &&
              int16_net.layer<3>().int16 == true);
static_assert(ctattn::int8_error(int16_net, cases::float_model, cases::held_out) < tolerance);

// The layer alone, quantized as a model of one layer: its points without a path, its output as `output`.
inline constexpr channel_scale<float, 8> scale_alone = cases::float_model.scale;
inline constexpr auto alone_recorded = [] {
  ctattn::activation_ranges<4> ranges{};
  for (const auto& x : cases::calibration) {
    (void)ctattn::record_ranges(scale_alone, ctattn::forward(cases::float_model.fc, x), ranges);
  }
  return ranges;
}();
inline constexpr auto alone_table = alone_recorded.table();
constexpr auto int8_alone = ctattn::quantize<alone_table>(scale_alone);
static_assert(alone_recorded.size() == 2 && alone_recorded.name(1) == "output");
static_assert(std::is_same_v<std::remove_cvref_t<decltype(int8_alone.layer<0>())>,
                             qchannel_scale<8, q_at<alone_table>("input"), q_at<alone_table>("output")>>);

// Link 1 of the model, quantized alone, is the int8 model's layer 1.
static_assert(ctattn::quantize_link<1, cases::table, cases::net>(ctattn::link<1>(cases::float_model)) ==
              cases::int8_net.layer<1>());

// --- A point inside a layer of one's own: recorded by its hook, read by its int8 form ------------------------------

// Two int8 layers in turn, the int8 form of a layer made of two.
template <typename A, typename B>
struct qpair {
  static constexpr ctattn::quantization input_quantization = A::input_quantization;
  static constexpr ctattn::quantization output_quantization = B::output_quantization;
  A first;
  B second;
  template <ctattn::QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return second.forward(first.forward(x));
  }
  template <ctattn::QuantizedMatrix X>
  [[nodiscard]] static constexpr ctattn::footprint footprint_of() noexcept {
    using middle = decltype(std::declval<const A&>().forward(std::declval<const X&>()));
    return ctattn::composed(A::template footprint_of<X>(), B::template footprint_of<middle>());
  }
  friend constexpr bool operator==(const qpair&, const qpair&) = default;
};

// second(first(x)): its int8 form needs the range between the two, which it records as the point `first`.
struct scale_pair {
  using value_type = float;
  static constexpr std::size_t input_extent = 8;
  static constexpr std::size_t output_extent = 8;
  channel_scale<float, 8> first{};
  channel_scale<float, 8> second{};
  template <ctattn::FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    return ctattn::forward(second, ctattn::forward(first, x));
  }
  template <ctattn::FixedMatrix X>
  [[nodiscard]] static constexpr ctattn::footprint footprint_of() noexcept {
    return ctattn::composed(ctattn::layer_footprint<channel_scale<float, 8>, X>,
                            ctattn::layer_footprint<channel_scale<float, 8>, X>);
  }
  template <typename Self>  // scale_pair or const scale_pair
    requires std::is_same_v<std::remove_const_t<Self>, scale_pair>
  friend constexpr auto parameters(Self& self) noexcept {
    return boost::hana::make_tuple(ctattn::sublayer("first", self.first), ctattn::sublayer("second", self.second));
  }
  // The hook: the point `first` (recorded as <path>.first), and the layer's output, which record_ranges records
  // under its path.
  template <ctattn::FixedMatrix X, typename Points>
  friend constexpr auto record_points(const scale_pair& self, const X& x, Points& points) noexcept {
    const auto between = ctattn::forward(self.first, x);
    points.widen("first", between);
    return ctattn::forward(self.second, between);
  }
  // The int8 form: `first` from the input's quantization to the point's, `second` from there to the output's.
  template <typename At>
  friend constexpr auto int8_form(const scale_pair& self, At) noexcept {
    constexpr ctattn::quantization q_first = At::quantization_at("first");
    using first_q = qchannel_scale<8, At::input_quantization, q_first>;
    using second_q = qchannel_scale<8, q_first, At::output_quantization>;
    return qpair<first_q, second_q>{first_q{self.first.weight}, second_q{self.second.weight}};
  }
};
struct pair_net : ctattn::model<pair_net> {
  BOOST_HANA_DEFINE_STRUCT(pair_net, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, fc), (scale_pair, pair),
                           (ctattn::linear<float, 8, 2, ctattn::out_by_in>, head));
};
inline constexpr pair_net pair_model = [] {
  pair_net m{};
  m.fc = cases::float_model.fc;
  m.pair.first = cases::float_model.scale;
  for (std::size_t c = 0; c < 8; ++c) m.pair.second.weight.elements[0][c] = 0.25f * static_cast<float>(c) - 1.0f;
  m.head = cases::float_model.head;
  return m;
}();
inline constexpr auto pair_recorded = [] {
  ctattn::activation_ranges<8> ranges{};
  for (const auto& x : cases::calibration) (void)ctattn::record_ranges(pair_model, x, ranges);
  return ranges;
}();
inline constexpr auto pair_table = pair_recorded.table();
static_assert(ctattn::parameter_name_at(pair_model, 2).view() == "pair.first.weight");
// The recorder the hook is given names its points under the layer's path.
static_assert([] {
  ctattn::activation_ranges<2> ranges{};
  ctattn::parameter_name path{};
  path.append("pair");
  ctattn::point_recorder<ctattn::activation_ranges<2>> points{ranges, path};
  points.widen("first", ctattn::matrix<float, 1, 2>{{{-1.5f, 0.5f}}});
  return points.path() == "pair" && ranges.size() == 1 && ranges.name(0) == "pair.first" &&
         ranges.range(0) == ctattn::value_range{-1.5, 0.5};
}());
// The hook's point, under the layer's path, is the range of first(fc(x)); the layer's output is recorded after it.
static_assert(pair_recorded.size() == 6 && pair_recorded.name(2) == "pair.first" && pair_recorded.name(3) == "pair");
static_assert([] {
  const auto& m = pair_model;
  const auto f0 = ctattn::forward(m.pair.first, ctattn::forward(m.fc, cases::calibration[0]));
  const auto f1 = ctattn::forward(m.pair.first, ctattn::forward(m.fc, cases::calibration[1]));
  const auto f2 = ctattn::forward(m.pair.first, ctattn::forward(m.fc, cases::calibration[2]));
  return *pair_recorded.find("pair.first") == ctattn::observed_range(f0, f1, f2);
}());
constexpr auto int8_pair = ctattn::quantize<pair_table>(pair_model);
using int8_pair_layer = std::remove_cvref_t<decltype(int8_pair.layer<1>())>;
static_assert(std::is_same_v<decltype(int8_pair_layer::first),
                             qchannel_scale<8, q_at<pair_table>("fc"), q_at<pair_table>("pair.first")>>);
static_assert(int8_pair_layer::output_quantization == q_at<pair_table>("pair"));
// Within 5 steps (one requantization more than the model above, into a head of a narrower range: 3.27 seen).
static_assert(ctattn::int8_error(int8_pair, pair_model, cases::held_out) < 5 * q_at<pair_table>("head").scale());

}  // namespace
