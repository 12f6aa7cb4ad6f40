// SPDX-License-Identifier: BSL-1.0
// A layer of one's own (docs/layers.md, "A layer of your own"), the worked example: `channel_scale`, PyTorch's
// `x * self.weight`, with the whole protocol a layer meets to sit in a ctattn::model beside the library's layers
// (its widths and element type, `forward`, `parameters` by PyTorch's names, `footprint_of`) and the int8 form
// `ctattn::quantize` takes for it (`int8_form`, returning `qchannel_scale`). A model `fc -> scale -> head` holds it,
// its ranges recorded over three inputs in a constant expression and its int8 form made by ctattn::quantize.
// tests/static/own_layer_test.cpp checks the float protocol, tests/static/own_layer_int8_test.cpp the int8 form at
// compile time, tests/runtime/own_layer_int8_test.cpp the same bits at run time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <boost/hana/tuple.hpp>
#include <ctattn/layers.hpp>
#include <ctattn/matrix/transpose.hpp>
#include <ctattn/quantized/model.hpp>
#include <ctattn/quantized/ranges.hpp>

namespace ctattn_test::own_layer_cases {

// The int8 form of channel_scale: TFLite's int8 MUL by a weight quantized per channel. Channel c's weight is int8
// with a symmetric scale of its own, s_c = |w_c| / 127 (`ctattn::weight_scales` of the weights as a column, as
// `ctattn::quantize_linear` scales a linear layer's rows), so its int8 value is +-127 (0 for a weight 0); each
// channel keeps the fixed-point multiplier s_in s_c / s_out, and y_q = requantize((x_q - z_in) w_q, multiplier,
// z_out), the library's requantization (`ctattn::requantize`).
template <std::size_t Width, ctattn::quantization QIn, ctattn::quantization QOut>
struct qchannel_scale {
  // What the int8 chain reads: the quantizations in and out (QOut is the next layer's input quantization).
  static constexpr ctattn::quantization input_quantization = QIn;
  static constexpr ctattn::quantization output_quantization = QOut;

  std::int8_t weight[Width]{};
  ctattn::math::quantized_multiplier multipliers[Width]{};

  constexpr qchannel_scale() noexcept = default;
  template <typename T>
  constexpr explicit qchannel_scale(const ctattn::matrix<T, 1, Width>& w) noexcept {
    const auto scales = ctattn::weight_scales(ctattn::transpose(w));  // one per channel: |w_c| / 127, 1 for 0
    for (std::size_t c = 0; c < Width; ++c) {
      const double steps = static_cast<double>(w.elements[0][c]) / scales[c];  // +-127, or 0
      weight[c] = static_cast<std::int8_t>(steps < 0 ? steps - 0.5 : steps + 0.5);
      multipliers[c] = ctattn::math::quantize_multiplier(QIn.scale() * scales[c] / QOut.scale());
    }
  }

  // forward on int8 rows quantized with QIn: constexpr, noexcept, integers only.
  template <ctattn::QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    static_assert(X::cols == Width && X::quant == QIn, "qchannel_scale: rows of its width, quantized with QIn");
    ctattn::basic_qmatrix<X::row_extent, Width, QOut> y;
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t c = 0; c < Width; ++c) {
        const std::int32_t product = (std::int32_t{x.elements[r][c]} - QIn.zero_point) * std::int32_t{weight[c]};
        y.elements[r][c] = ctattn::requantize(product, multipliers[c], QOut.zero_point);
      }
    }
    return y;
  }

  // What one call keeps: the layer (flash when constexpr), its input, its output, nothing else on the stack.
  template <ctattn::QuantizedMatrix X>
  [[nodiscard]] static constexpr ctattn::footprint footprint_of() noexcept {
    return {sizeof(qchannel_scale), sizeof(X), sizeof(ctattn::basic_qmatrix<X::row_extent, Width, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qchannel_scale&, const qchannel_scale&) = default;
};

// x * weight, column by column: PyTorch's `x * self.weight` with `self.weight = nn.Parameter(torch.ones(width))`.
template <typename T, std::size_t Width>
struct channel_scale {
  // 1. The element type and the widths in and out (or `static constexpr bool keeps_width = true;`), which the
  //    model's chain checks against its neighbours' where the model is declared.
  using value_type = T;
  static constexpr std::size_t input_extent = Width;
  static constexpr std::size_t output_extent = Width;

  // 2. The parameters, as the module holds them.
  ctattn::matrix<T, 1, Width> weight = [] {
    ctattn::matrix<T, 1, Width> ones{};
    for (std::size_t c = 0; c < Width; ++c) ones.elements[0][c] = T{1};
    return ones;
  }();

  // 3. forward: constexpr, noexcept, no allocation; the options are the call's (an arithmetic, a mask), to be
  //    passed on to the library's calls or ignored.
  template <ctattn::FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    ctattn::basic_matrix<T, X::row_extent, Width> y{};
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t c = 0; c < Width; ++c) y.elements[r][c] = x.elements[r][c] * weight.elements[0][c];
    }
    return y;
  }

  // 4. What one call keeps (ctattn::layer_footprint): the layer, its input, its output, nothing else on the stack.
  template <ctattn::FixedMatrix X>
  [[nodiscard]] static constexpr ctattn::footprint footprint_of() noexcept {
    return {sizeof(channel_scale), sizeof(X), sizeof(ctattn::basic_matrix<T, X::row_extent, Width>), 0, 0};
  }

  // 5. Its parameters by name, in state_dict order, for loading, printing and quantizing: a const and a mutable
  //    overload (or one template on the layer's type).
  friend constexpr auto parameters(channel_scale& self) noexcept {
    return boost::hana::make_tuple(ctattn::vector_parameter("weight", self.weight));
  }
  friend constexpr auto parameters(const channel_scale& self) noexcept {
    return boost::hana::make_tuple(ctattn::vector_parameter("weight", self.weight));
  }
  friend constexpr bool operator==(const channel_scale&, const channel_scale&) = default;

  // 6. Its int8 form, for ctattn::quantize: `at` (a ctattn::int8_context) gives the input's quantization (the output
  //    quantization of the int8 layer before this one) and the range ctattn::record_ranges recorded at this layer's
  //    output, quantized (`output_quantization`: the int8 layer's result, and the next int8 layer's input).
  template <typename At>
  friend constexpr auto int8_form(const channel_scale& self, At) noexcept {
    return qchannel_scale<Width, At::input_quantization, At::output_quantization>{self.weight};
  }
};

struct net : ctattn::model<net> {
  BOOST_HANA_DEFINE_STRUCT(net, (ctattn::linear<float, 4, 8, ctattn::out_by_in, true>, fc),
                           (channel_scale<float, 8>, scale), (ctattn::linear<float, 8, 2, ctattn::out_by_in>, head));
};

// A value in [-0.5, 0.5) from k, by a multiplicative hash.
constexpr float hashed(std::uint32_t k) noexcept {
  const std::uint32_t h = (k + 1) * 2654435761u;
  return static_cast<float>((h >> 8) % 1024u) / 1024.0f - 0.5f;
}

// The weights: fc's and head's from the hash, the channels' scales of both signs and of magnitudes 0.3 to 2.5 (one
// 0: a channel the int8 form must keep at the output's zero point).
inline constexpr float channel_weights[8] = {0.5f, -1.25f, 2.0f, 0.75f, -0.3f, 1.5f, -2.5f, 0.0f};
constexpr net weights() noexcept {
  net n{};
  std::uint32_t k = 0;
  ctattn::for_each_parameter(n, [&](std::string_view name, const auto& tensor) {
    for (std::size_t i = 0; i < tensor.size; ++i, ++k) {
      tensor[i] = name == "scale.weight" ? channel_weights[i] : (name == "fc.bias" ? 0.25f : 1.5f) * hashed(k);
    }
  });
  return n;
}
inline constexpr net float_model = weights();

// Three inputs to calibrate with; one held out whose activations all lie within the recorded ranges (the mean of two
// calibration inputs: the model is linear, so each of its activations is the mean of theirs); one beyond them.
constexpr ctattn::matrix<float, 3, 4> input(std::uint32_t seed) noexcept {
  ctattn::matrix<float, 3, 4> x{};
  for (std::size_t i = 0; i < 12; ++i) {
    x.elements[i / 4][i % 4] = 2.0f * hashed(seed * 12 + static_cast<std::uint32_t>(i));
  }
  return x;
}
inline constexpr std::array<ctattn::matrix<float, 3, 4>, 3> calibration{input(100), input(101), input(102)};
inline constexpr ctattn::matrix<float, 3, 4> held_out = [] {
  ctattn::matrix<float, 3, 4> x{};
  for (std::size_t i = 0; i < 12; ++i) {
    x.elements[i / 4][i % 4] = 0.5f * (calibration[0].elements[i / 4][i % 4] + calibration[2].elements[i / 4][i % 4]);
  }
  return x;
}();
inline constexpr ctattn::matrix<float, 3, 4> beyond = input(200);

// The ranges recorded in a constant expression: input, fc, scale, head, output.
inline constexpr auto recorded = [] {
  ctattn::activation_ranges<8> ranges{};
  for (const auto& x : calibration) (void)ctattn::record_ranges(float_model, x, ranges);
  return ranges;
}();
inline constexpr auto table = recorded.table();

// The int8 model: qlinear, qchannel_scale, qlinear.
using int8_model = ctattn::quantized_model<net, table>;
inline constexpr int8_model int8_net = ctattn::quantize<table>(float_model);

}  // namespace ctattn_test::own_layer_cases
