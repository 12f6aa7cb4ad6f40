// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_ACTIVATION_HPP
#define CTATTN_LAYERS_ACTIVATION_HPP

/// \file
/// Activation layers, element by element, keeping the width:
///
/// | layer        | y                                                        | PyTorch                          |
/// |--------------|----------------------------------------------------------|----------------------------------|
/// | `relu`       | max(x, 0) (NaN stays NaN)                                | nn.ReLU                          |
/// | `gelu`       | x/2 (1 + erf(x / sqrt 2))                                | nn.GELU()                        |
/// | `gelu_tanh`  | x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))            | nn.GELU(approximate="tanh")      |
/// | `silu`       | x / (1 + e^-x)                                           | nn.SiLU                          |
///
/// Each computes through the kernel tier (ctattn/kernels/dispatch.hpp): with exact arithmetic in ctattn's constexpr
/// math (ctattn/math/), so run time gives the bits `static_assert` saw; with fast arithmetic on float, in the SIMD
/// backend's registers (docs/kernels.md gives the bound). The options are those of `ctattn::forward`.

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/layers/layer.hpp"

namespace ctattn {

namespace detail {
// PyTorch's name of an activation (nn.TransformerEncoderLayer's `activation`; "gelu_tanh" for
// nn.GELU(approximate="tanh")).
constexpr std::string_view activation_name(kernels::activation f) noexcept {
  switch (f) {
    case kernels::activation::relu:
      return "relu";
    case kernels::activation::gelu:
      return "gelu";
    case kernels::activation::gelu_tanh:
      return "gelu_tanh";
    case kernels::activation::silu:
      return "silu";
  }
  return "";
}

// An activation layer from the kernel tier's activation F (ctattn/kernels/activation.hpp): keeps the width, holds
// no parameters.
template <kernels::activation F>
struct activation_layer {
  static constexpr bool keeps_width = true;
  /// The activation, by the kernel tier's name.
  static constexpr kernels::activation function = F;

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr X forward(const X& x, const Options&...) const noexcept {
    X y{};
    kernels::activate<arithmetic_of<Options...>, F>(x.elements, y.elements);
    return y;
  }

  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return call_footprint<activation_layer, X, X>(0);
  }

  template <typename Self>
    requires std::is_base_of_v<activation_layer, std::remove_const_t<Self>>
  friend constexpr auto parameters(Self&) noexcept {
    return boost::hana::make_tuple();
  }
  /// Its setting (ctattn::for_each_setting): `activation`, PyTorch's name of the function.
  friend constexpr auto settings(const activation_layer&) noexcept {
    return std::array{setting("activation", activation_name(F))};
  }
  friend constexpr bool operator==(const activation_layer&, const activation_layer&) = default;
};
}  // namespace detail

/// nn.ReLU: max(x, 0) element by element.
///
/// | operand | shape          |
/// |---------|----------------|
/// | input   | n x d          |
/// | result  | n x d          |
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::relu{}, x);`
struct relu : detail::activation_layer<detail::kernels::activation::relu> {};

/// nn.GELU() (the exact erf form): x/2 (1 + erf(x / sqrt 2)); shapes as `relu`.
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::gelu{}, x);`
struct gelu : detail::activation_layer<detail::kernels::activation::gelu> {};

/// nn.GELU(approximate="tanh"): x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); shapes as `relu`.
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::gelu_tanh{}, x);`
struct gelu_tanh : detail::activation_layer<detail::kernels::activation::gelu_tanh> {};

/// nn.SiLU (swish): x / (1 + e^-x); shapes as `relu`.
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::silu{}, x);`
struct silu : detail::activation_layer<detail::kernels::activation::silu> {};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_ACTIVATION_HPP
