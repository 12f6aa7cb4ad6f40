// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_POOL_HPP
#define CTATTN_LAYERS_POOL_HPP

/// \file
/// Pooling the tokens into one row before a classifier's head: `class_token_pool` reads the class token's row
/// (`x[:, 0]`, timm's `global_pool='token'`, KWT), `mean_pool` averages the rows (`x.mean(dim=1)`, timm's
/// `global_pool='avg'`). Both keep the width, hold no parameters and give a 1 x width matrix.

#include <cstddef>

#include <boost/hana/tuple.hpp>

#include "ctattn/layers/layer.hpp"

namespace ctattn {

/// The class token's row: y = x[0], as a classifier reads it after the encoder (ViT, KWT).
///
/// | operand | shape     |
/// |---------|-----------|
/// | input   | n x width |
/// | result  | 1 x width |
///
/// Example:
/// \code
///   constexpr auto y = ctattn::forward(ctattn::class_token_pool{}, ctattn::matrix<float, 2, 2>{{{1, 2}, {3, 4}}});
///   static_assert(y(0, 1) == 2.0f);
/// \endcode
struct class_token_pool {
  static constexpr bool keeps_width = true;

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    basic_matrix<typename X::value_type, std::size_t{1}, X::column_extent> y{};
    for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] = x.elements[0][j];
    return y;
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): nothing on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<class_token_pool, X, detail::layer_result<class_token_pool, X>>(0);
  }

  template <detail::SameLayer<class_token_pool> Self>
  friend constexpr auto parameters(Self&) noexcept {
    return boost::hana::make_tuple();
  }
  friend constexpr bool operator==(const class_token_pool&, const class_token_pool&) = default;
};

/// The mean of the rows: y = x.mean(dim=0), summed in row order and divided by n (timm's `global_pool='avg'`).
///
/// | operand | shape     |
/// |---------|-----------|
/// | input   | n x width |
/// | result  | 1 x width |
///
/// Example:
/// \code
///   constexpr auto y = ctattn::forward(ctattn::mean_pool{}, ctattn::matrix<float, 2, 2>{{{1, 2}, {3, 4}}});
///   static_assert(y(0, 0) == 2.0f && y(0, 1) == 3.0f);
/// \endcode
struct mean_pool {
  static constexpr bool keeps_width = true;

  template <FixedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&...) const noexcept {
    using T = typename X::value_type;
    basic_matrix<T, std::size_t{1}, X::column_extent> y{};
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] += x.elements[r][j];
    }
    for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] /= static_cast<T>(X::rows);
    return y;
  }

  /// The footprint of one forward on an X (`ctattn::layer_footprint`): nothing on the stack.
  template <FixedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return detail::call_footprint<mean_pool, X, detail::layer_result<mean_pool, X>>(0);
  }

  template <detail::SameLayer<mean_pool> Self>
  friend constexpr auto parameters(Self&) noexcept {
    return boost::hana::make_tuple();
  }
  friend constexpr bool operator==(const mean_pool&, const mean_pool&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_LAYERS_POOL_HPP
