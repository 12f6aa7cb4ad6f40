// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_NORM_HPP
#define CTATTN_LAYERS_NORM_HPP

/// \file
/// Normalization layers: `layer_norm` (nn.LayerNorm over the last dimension) and `rms_norm` (nn.RMSNorm).

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include "ctattn/kernels/dispatch.hpp"
#include "ctattn/layers/layer.hpp"

namespace ctattn {

namespace detail {
// A norm's weight or bias: a 1 x Width row, or nothing when the norm has no affine parameters.
struct no_norm_parameter {
  friend constexpr bool operator==(const no_norm_parameter&, const no_norm_parameter&) = default;
};
template <typename T, auto Width, bool Affine>
using norm_parameter = std::conditional_t<Affine, basic_matrix<T, std::size_t{1}, Width>, no_norm_parameter>;

// A norm parameter's entries for the kernels (nullptr when the norm has none).
template <typename T, typename P>
constexpr const T* norm_row(const P& p) noexcept {
  if constexpr (std::is_same_v<P, no_norm_parameter>) {
    return nullptr;
  } else {
    return &p.elements[0][0];
  }
}

// PyTorch's initial weight: ones.
template <typename T, auto Width, bool Affine>
constexpr norm_parameter<T, Width, Affine> ones() noexcept {
  norm_parameter<T, Width, Affine> w{};
  if constexpr (Affine) {
    for (std::size_t j = 0; j < extent_size(Width); ++j) w.elements[0][j] = T(1);
  }
  return w;
}

}  // namespace detail

/// Layer normalization over each row (PyTorch's nn.LayerNorm(width, eps, elementwise_affine)):
/// y = (x - mean) / sqrt(var + eps) * weight + bias, with the biased variance (divided by width).
///
/// | operand / member | shape                                   |
/// |------------------|-----------------------------------------|
/// | input            | n x Width                               |
/// | result           | n x Width                               |
/// | `weight`, `bias` | 1 x Width (only when `Affine`)          |
/// | `eps`            | a scalar, PyTorch's default 1e-5        |
///
/// Computed in T on offsets from the row's first entry: their mean, then the mean of squared deviations (two
/// passes), then 1 / sqrt(var + eps) once per row (ctattn/kernels/activation.hpp; exact arithmetic sums in column
/// order, fast arithmetic across the SIMD backend's lanes, `ctattn::forward`'s options choose). A row of equal
/// values gives zeros (then the bias). A row far from zero keeps its precision: on the fixture's row of
/// 1000 + 0.01 N(0, 1), float results are within 1e-7 of the float64 result, where PyTorch's float32 LayerNorm is
/// 3e-3 off.
///
/// Example:
/// \code
///   constexpr ctattn::layer_norm<float, 4> norm{.weight = {{{1, 1, 1, 1}}}, .bias = {}};
///   constexpr auto y = ctattn::forward(norm, ctattn::matrix<float, 1, 4>{{{1, 2, 3, 4}}});
///   // {-1.3416, -0.4472, 0.4472, 1.3416}
/// \endcode
template <typename T, auto Width, bool Affine = true>
struct layer_norm {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<Width>;
  static constexpr auto output_extent = normalize_extent<Width>;
  static constexpr std::size_t width = extent_size(input_extent);

  [[no_unique_address]] detail::norm_parameter<T, input_extent, Affine> weight =
      detail::ones<T, input_extent, Affine>();
  [[no_unique_address]] detail::norm_parameter<T, input_extent, Affine> bias{};
  T eps = T(1e-5);

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    basic_matrix<T, X::row_extent, output_extent> y{};
    if constexpr (detail::first_broken<detail::layer_input_rules<layer_norm, X>>::check()) {
      detail::kernels::layer_norm_rows<detail::arithmetic_of<Options...>, Affine, Affine>(
          x.elements, y.elements, detail::norm_row<T>(weight), detail::norm_row<T>(bias), eps);
    }
    return y;
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): the row of offsets on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<layer_norm, X, basic_matrix<T, X::row_extent, output_extent>>(width * sizeof(T));
  }

  /// nn.LayerNorm's parameters: `weight` and `bias` (none without `Affine`).
  template <detail::SameLayer<layer_norm> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    if constexpr (Affine) {
      return boost::hana::make_tuple(vector_parameter("weight", self.weight), vector_parameter("bias", self.bias));
    } else {
      return boost::hana::make_tuple();
    }
  }

  friend constexpr bool operator==(const layer_norm&, const layer_norm&) = default;
};

/// Root-mean-square normalization over each row (PyTorch's nn.RMSNorm(width, eps, elementwise_affine), as in
/// LLaMA): y = x / sqrt(mean(x^2) + eps) * weight.
///
/// | operand / member | shape                                                                  |
/// |------------------|------------------------------------------------------------------------|
/// | input, result    | n x Width                                                              |
/// | `weight`         | 1 x Width (only when `Affine`)                                         |
/// | `eps`            | a scalar; default the machine epsilon of T, PyTorch's default for eps=None |
///
/// Example:
/// \code
///   constexpr ctattn::rms_norm<float, 2> norm{};
///   constexpr auto y = ctattn::forward(norm, ctattn::matrix<float, 1, 2>{{{3, 4}}});   // {0.8485, 1.1314}
/// \endcode
// Rationale: the members it shares with layer_norm (extents, width, weight) stay written in each: a shared base
// would stop the designated initializers `{.weight = ..., .eps = ...}` that both are built with, since C++20's
// cannot name a base's members.
template <typename T, auto Width, bool Affine = true>
struct rms_norm {
  using value_type = T;
  static constexpr auto input_extent = normalize_extent<Width>;
  static constexpr auto output_extent = normalize_extent<Width>;
  static constexpr std::size_t width = extent_size(input_extent);

  [[no_unique_address]] detail::norm_parameter<T, input_extent, Affine> weight =
      detail::ones<T, input_extent, Affine>();
  T eps = std::numeric_limits<T>::epsilon();

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    basic_matrix<T, X::row_extent, output_extent> y{};
    if constexpr (detail::first_broken<detail::layer_input_rules<rms_norm, X>>::check()) {
      detail::kernels::rms_norm_rows<detail::arithmetic_of<Options...>, Affine>(x.elements, y.elements,
                                                                                detail::norm_row<T>(weight), eps);
    }
    return y;
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): nothing on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<rms_norm, X, basic_matrix<T, X::row_extent, output_extent>>(0);
  }

  /// nn.RMSNorm's parameters: `weight` (none without `Affine`).
  template <detail::SameLayer<rms_norm> Self>
  friend constexpr auto parameters(Self& self) noexcept {
    if constexpr (Affine) {
      return boost::hana::make_tuple(vector_parameter("weight", self.weight));
    } else {
      return boost::hana::make_tuple();
    }
  }

  friend constexpr bool operator==(const rms_norm&, const rms_norm&) = default;
};

namespace detail {
template <typename L>
inline constexpr bool is_norm = false;
template <typename T, auto Width, bool Affine>
inline constexpr bool is_norm<layer_norm<T, Width, Affine>> = true;
template <typename T, auto Width, bool Affine>
inline constexpr bool is_norm<rms_norm<T, Width, Affine>> = true;
}  // namespace detail

/// The setting of a `layer_norm` or `rms_norm` beside its tensors (nn.LayerNorm's and nn.RMSNorm's): `eps`
/// (ctattn::for_each_setting).
///
/// Example: `ctattn::for_each_setting(norm, f)` calls `f("eps", entry)` once.
template <typename Norm>
  requires detail::is_norm<Norm>
[[nodiscard]] constexpr auto settings(const Norm& self) noexcept {
  return std::array{setting("eps", self.eps)};
}

/// Sets a norm's `eps` (ctattn::set_setting, ctattn::set_every_setting); false, with nothing changed, for another
/// name.
///
/// Example: `ctattn::set_setting(model, "encoder.norm1.eps", 1e-6)` reaches it.
template <typename Norm>
  requires detail::is_norm<Norm>
constexpr bool adjust_setting(Norm& self, std::string_view name, double value) noexcept {
  if (name != "eps") return false;
  self.eps = static_cast<decltype(self.eps)>(value);
  return true;
}

}  // namespace ctattn

#endif  // CTATTN_LAYERS_NORM_HPP
