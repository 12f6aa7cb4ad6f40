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
/// Each uses ctattn's constexpr math (ctattn/math/), so run time gives the bits `static_assert` saw.

#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/layers/layer.hpp"
#include "ctattn/math/erf.hpp"
#include "ctattn/math/exp.hpp"
#include "ctattn/math/tanh.hpp"

namespace ctattn {

namespace detail {
// An activation layer from its scalar function: keeps the width, holds no parameters.
template <typename Function>
struct activation_layer {
  static constexpr bool keeps_width = true;

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr X forward(const X& x, const Options&...) const noexcept {
    X y{};
    for (std::size_t i = 0; i < X::rows; ++i) {
      for (std::size_t j = 0; j < X::cols; ++j) y.elements[i][j] = Function::apply(x.elements[i][j]);
    }
    return y;
  }

  template <typename Self>
    requires std::is_base_of_v<activation_layer, std::remove_const_t<Self>>
  friend constexpr auto parameters(Self&) noexcept {
    return boost::hana::make_tuple();
  }
  friend constexpr bool operator==(const activation_layer&, const activation_layer&) = default;
};

struct relu_function {
  template <typename T>
  static constexpr T apply(T x) noexcept {
    return x < T(0) ? T(0) : x;
  }
};
struct gelu_function {
  template <typename T>
  static constexpr T apply(T x) noexcept {
    constexpr T inverse_sqrt2 = T(0.70710678118654752440L);
    return T(0.5) * x * (T(1) + math::erf(x * inverse_sqrt2));
  }
};
struct gelu_tanh_function {
  template <typename T>
  static constexpr T apply(T x) noexcept {
    constexpr T sqrt_2_over_pi = T(0.79788456080286535588L);
    constexpr T cubic = T(0.044715L);
    return T(0.5) * x * (T(1) + math::tanh(sqrt_2_over_pi * (x + cubic * x * x * x)));
  }
};
struct silu_function {
  template <typename T>
  static constexpr T apply(T x) noexcept {
    return x / (T(1) + math::exp(-x));
  }
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
struct relu : detail::activation_layer<detail::relu_function> {};

/// nn.GELU() (the exact erf form): x/2 (1 + erf(x / sqrt 2)); shapes as `relu`.
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::gelu{}, x);`
struct gelu : detail::activation_layer<detail::gelu_function> {};

/// nn.GELU(approximate="tanh"): x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); shapes as `relu`.
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::gelu_tanh{}, x);`
struct gelu_tanh : detail::activation_layer<detail::gelu_tanh_function> {};

/// nn.SiLU (swish): x / (1 + e^-x); shapes as `relu`.
///
/// Example: `constexpr auto y = ctattn::forward(ctattn::silu{}, x);`
struct silu : detail::activation_layer<detail::silu_function> {};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_ACTIVATION_HPP
